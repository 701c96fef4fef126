#!/usr/bin/env bash
# The io_uring backend beside the dedicated thread, the async model, plain .NET and the C reference (udplimit),
# interleaved point by point: loopback datagrams/s and receiver CPU at 64 and 1,380 B, a one-worker server on each
# backend, and request/response (512 B) at 1 and 16 in flight on each backend. 3 rounds of 2 s windows.
# Placement: receivers and responders on CPU 1, senders and clients on CPU 0 (salvo's defaults; C by taskset).
# Usage: benchmarks/io-uring/run.sh [OUT]   (UDPLIMIT=another udplimit build, else src/Salvo.Perf/Lab/c/udplimit.c built with cc; ROUNDS=3)
# Then:  python3 benchmarks/io-uring/summary.py OUT
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
C=${UDPLIMIT:-}
if [ -z "$C" ]; then
  C=$(mktemp -d)/udplimit
  cc -O2 -Wall -Wextra -o "$C" "$root/src/Salvo.Perf/Lab/c/udplimit.c" || { echo "building the C reference failed" >&2; exit 2; }
fi
S="dotnet $root/src/Salvo.Perf/bin/Release/net10.0/Salvo.Perf.dll"
out=${1:-io-uring.txt}; : > "$out"
[ -x "$C" ] || { echo "no C reference at $C (UDPLIMIT)" >&2; exit 2; }
[ -f "${S#dotnet }" ] || { echo "build Salvo first: dotnet build -c Release" >&2; exit 2; }
port=54000
c_stream() { # receive-method size send-method
  port=$((port + 1))
  taskset -c 1 timeout 20 "$C" recv -m "$1" -t 2 -p $port -W 5 > /tmp/uring-recv.out 2>&1 &
  local receiver=$!; sleep 0.3
  taskset -c 0 timeout 20 "$C" send -m "$3" -s "$2" -t 2.5 -p $port -U > /dev/null 2>&1
  wait $receiver
  echo "c $3 $2 $round $(grep '^RESULT' /tmp/uring-recv.out | sed 's/^RESULT //')" >> "$out"
}
s_stream() { # method size backend
  echo "s $1-$3 $2 $round $($S loopback -m $1 --backend $3 -l $2 -t 2 --warmup 0.3 --repeat 1 --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]
print("pps=%.0f rcpu=%.1f scpu=%.1f loss=%.3f" % (r["datagramsPerSecond"], r["receiverCpuPercent"] or 0,
      r["senderCpuPercent"] or 0, r["lossPercent"]))')" >> "$out"
}
s_rr() { # backend in-flight
  echo "s rr-$1 $2 $round $($S rr --backend $1 -P $2 -t 2 --warmup 0.5 --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]; l = r["latency"]
print("rps=%.0f p50=%.1f p99=%.1f lost=%d" % (r["requestsPerSecond"], l["p50Microseconds"], l["p99Microseconds"], r["lost"]))')" >> "$out"
}
echo "start $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for size in 64 1380; do
    s_stream socket $size auto;           s_stream salvo $size linux
    s_stream salvo-async $size linux;     s_stream salvo-uring $size uring
    s_stream salvo-uring-gso $size uring
    s_stream server-w1 $size linux;       s_stream server-w1 $size uring
    c_stream recvfrom $size sendto;       c_stream recvmmsg $size sendmmsg
  done
  for n in 1 16; do s_rr linux $n; s_rr uring $n; done
done
echo "end $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
