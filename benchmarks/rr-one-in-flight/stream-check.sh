#!/usr/bin/env bash
# The batched stream beside the rr points: `salvo loopback -m socket,salvo` (blocking dedicated threads, sender on
# CLIENT_CPU, receiver on SERVER_CPU) for each build in BUILDS, interleaved per round, so a change to the blocking
# receive that costs throughput shows up beside what it buys at one request in flight. 1 s windows after 0.3 s warm-up.
# Usage: BUILDS="before:DIR after:DIR" benchmarks/rr-one-in-flight/stream-check.sh [OUT]   (ROUNDS=3)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILDS=${BUILDS:-after:$root/src/Salvo.Perf/bin/Release/net10.0}
S=${SERVER_CPU:-1}
K=${CLIENT_CPU:-0}
out=${1:-stream-check.txt}; : > "$out"
echo "start $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg) sender_cpu $K receiver_cpu $S" >> "$out"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for build in $BUILDS; do
    name=$(echo "$build" | cut -d: -f1); dir=$(echo "$build" | cut -d: -f2)
    json=$(timeout 60 dotnet "$dir/Salvo.Perf.dll" loopback -m socket,salvo -l 64,1380 -t 1 --warmup 0.3 --repeat 1 \
      --sender-cpu $K --receiver-cpu $S --json 2> /dev/null | tr -d ' \n')
    # One line per method and size: name round method size datagrams/s receiver-CPU%.
    echo "$json" | grep -o '"method":"[a-z-]*","[^}]*' | while read -r point; do
      echo "$name $round $(echo "$point" | grep -o '"method":"[a-z-]*"' | cut -d'"' -f4)" \
        "size=$(echo "$point" | grep -o '"payloadBytes":[0-9]*' | cut -d: -f2)" \
        "pps=$(echo "$point" | grep -o '"datagramsPerSecond":[0-9.]*' | cut -d: -f2)" \
        "rcpu=$(echo "$point" | grep -o '"receiverCpuPercent":[0-9.]*' | cut -d: -f2)"
    done | awk '!seen[$0]++' >> "$out"
  done
done
echo "end $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
