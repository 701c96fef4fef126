#!/usr/bin/env bash
# AF_XDP on a veth pair beside the kernel's UDP path and C: 'salvo lab' with the table docs/benchmarks.md quotes.
# Two namespaces (198.18.0.1 in A, 198.18.0.2 in B); receivers and responders in B on CPU 1, senders and clients
# in A on CPU 0. Per round: datagrams/s and receiver CPU per datagram at 64 and 1,380 B (C's sendmmsg sender feeds
# Salvo kernel, Salvo AF_XDP waiting in poll(2) and busy-polling, and C's recvmmsg receiver in turn), then request/response 512 B at 1, 4 and 16 in flight
# (salvo rr against salvo server on each backend, C's ppclient against ppserver). 3 rounds of 2 s windows: about
# 3.5 minutes on an idle 2-core machine. Needs root, ip, taskset and a C compiler (C's udplimit ships as source).
# Usage: sudo benchmarks/afxdp/run.sh [OUT]   (ROUNDS=3, SECONDS_PER_POINT=2,
#        JSON=1 for the document with every round's samples instead of the tables)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
salvo="$root/src/Salvo.Perf/bin/Release/net10.0/Salvo.Perf.dll"
out=${1:-afxdp-lab.txt}
[ -f "$salvo" ] || { echo "build Salvo first: dotnet build -c Release src/Salvo.Perf" >&2; exit 2; }
args=(lab --sizes 64,1380 --parallel-levels 1,4,16 --request 512
  -t "${SECONDS_PER_POINT:-2}" --warmup 0.5 --rounds "${ROUNDS:-3}" --sender-cpu 0 --receiver-cpu 1)
echo "salvo ${args[*]}" | tee "$out"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
[ -n "${JSON:-}" ] && args+=(--json)
dotnet "$salvo" "${args[@]}" | tee -a "$out"
