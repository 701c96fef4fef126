#!/usr/bin/env bash
# Salvo beside the C reference (udplimit), interleaved point by point: GSO -> GRO, batched unconnected and
# connected, receiver CPU per datagram, request/response at 1 and 16 in flight. 3 rounds of 2 s windows.
# Placement: receivers and responders on CPU 1, senders and clients on CPU 0 (salvo's defaults).
# Usage: benchmarks/level-with-c/run.sh [OUT]   (UDPLIMIT=another udplimit build, else src/Salvo.Perf/Lab/c/udplimit.c built with cc; ROUNDS=3)
# Then:  python3 benchmarks/level-with-c/summary.py OUT
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
C=${UDPLIMIT:-}
if [ -z "$C" ]; then
  C=$(mktemp -d)/udplimit
  cc -O2 -Wall -Wextra -o "$C" "$root/src/Salvo.Perf/Lab/c/udplimit.c" || { echo "building the C reference failed" >&2; exit 2; }
fi
S="dotnet $root/src/Salvo.Perf/bin/Release/net10.0/Salvo.Perf.dll"
out=${1:-level-with-c.txt}; : > "$out"
[ -x "$C" ] || { echo "no C reference at $C (UDPLIMIT)" >&2; exit 2; }
[ -f "${S#dotnet }" ] || { echo "build Salvo first: dotnet build -c Release" >&2; exit 2; }
port=53000
c_stream() { # receive-method size send-method [-U]
  port=$((port + 1))
  taskset -c 1 timeout 20 "$C" recv -m "$1" -t 2 -p $port -W 5 > /tmp/lwc-recv.out 2>&1 &
  local receiver=$!; sleep 0.3
  taskset -c 0 timeout 20 "$C" send -m "$3" -s "$2" -t 2.5 -p $port ${4:-} > /dev/null 2>&1
  wait $receiver
  echo "c $3${4:+-U} $2 $round $(grep '^RESULT' /tmp/lwc-recv.out | sed 's/^RESULT //')" >> "$out"
}
c_rr() { # in flight
  port=$((port + 1))
  taskset -c 1 timeout 30 "$C" ppserver -p $port -r 512 -t 12 -I 1 > /dev/null 2>&1 &
  local server=$!; sleep 0.3
  echo "c rr $1 $round $(taskset -c 0 timeout 30 "$C" ppclient -p $port -n $1 -q 512 -t 2 -w 0.5 | grep '^RESULT' | sed 's/^RESULT //')" >> "$out"
  wait $server
}
s_stream() { # method size [--connect]
  echo "s $1${3:+-connect} $2 $round $($S loopback -m $1 -l $2 -t 2 --warmup 0.3 --repeat 1 ${3:-} --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]
print("pps=%.0f rcpu=%.1f scpu=%.1f loss=%.3f alloc=%.2f" % (r["datagramsPerSecond"], r["receiverCpuPercent"],
      r["senderCpuPercent"], r["lossPercent"], r["allocatedBytesPerDatagram"]))')" >> "$out"
}
s_rr() { # in flight
  echo "s rr $1 $round $($S rr -P $1 -t 2 --warmup 0.5 --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]; l = r["latency"]
print("rps=%.0f p50=%.1f p99=%.1f reqsend=%.2f resprecv=%.2f lost=%d" % (r["requestsPerSecond"], l["p50Microseconds"],
      l["p99Microseconds"], r["requestsPerSendCall"], r["responsesPerReceiveCall"], r["lost"]))')" >> "$out"
}
echo "start $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for size in 1380 64; do
    c_stream gro $size gso -U;            s_stream salvo-gso $size
    c_stream recvmmsg $size sendmmsg -U;  s_stream salvo $size
    c_stream recvmmsg $size sendmmsg;     s_stream salvo $size --connect
  done
  c_rr 1;  s_rr 1
  c_rr 16; s_rr 16
done
echo "end $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
