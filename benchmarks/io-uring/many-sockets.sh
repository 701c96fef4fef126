#!/usr/bin/env bash
# The use the io_uring backend was built for, beside the batched backend: many connected UDP sockets served on two
# threads (a thread pool held to two; each backend adds its own waker: the runtime's epoll thread for the batched
# backend's async receives, the shared engine thread for io_uring). 64 B requests, three cases:
#   10,000 sockets, light traffic: open loop, RATE datagrams/s in total, every socket in turn;
#   100 sockets, heavy traffic, open loop: HEAVY_RATE datagrams/s in total (the same offered load for both backends,
#     so CPU per request compares like with like while both keep up);
#   100 sockets, heavy traffic, closed loop: 4 requests in flight on each, as fast as the server answers.
# Rounds interleaved: linuxbatched, iouring, linuxbatched, iouring, ... for each case.
# Placement: the served process on CPU 1, the driver (one batched socket, two threads) on CPU 0.
# Usage: benchmarks/io-uring/many-sockets.sh [OUT]   (ROUNDS=3, TIME=5 seconds per point, RATE=10000, HEAVY_RATE=20000)
# Needs: dotnet build benchmarks/Salvo.Benchmarks -c Release
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B="$root/benchmarks/Salvo.Benchmarks/bin/Release/net10.0/Salvo.Benchmarks.dll"
[ -f "$B" ] || { echo "build first: dotnet build benchmarks/Salvo.Benchmarks -c Release" >&2; exit 2; }
out=${1:-many-sockets.txt}; : > "$out"
t=${TIME:-5}
point() { # backend sockets mode value
  # Each point ends by itself (the driver stops its server); timeout is only the backstop.
  echo "round=$round $(taskset -c 0 timeout $((t + 60)) dotnet "$B" many-sockets --backend "$1" --sockets "$2" --"$3" "$4" \
    --time "$t" --warmup 1 --server-cpu 1 2>&1 | tail -1)" >> "$out"
}
echo "start $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg) kernel $(uname -r)" >> "$out"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for backend in linuxbatched iouring; do point $backend 10000 rate "${RATE:-10000}"; done
  for backend in linuxbatched iouring; do point $backend 100 rate "${HEAVY_RATE:-20000}"; done
  for backend in linuxbatched iouring; do point $backend 100 in-flight 4; done
done
echo "end $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
