#!/usr/bin/env bash
# Request/response with one request in flight, blocking, beside C and stock sockperf, interleaved point by point
# in every round (512 B requests and responses; every server or responder on SERVER_CPU, every client on CLIENT_CPU):
#   c               udplimit ppserver + udplimit ppclient -n 1            (src/Salvo.Perf/Lab/c/udplimit.c)
#   sockperf        sockperf server + sockperf ping-pong --full-rtt       (stock)
#   rr:NAME         salvo rr -P 1: client thread and in-process responder thread pinned by salvo (one process)
#   server:NAME     salvo server + salvo rr -P 1 --server (two processes, pinned with taskset)
# for each Salvo build in BUILDS ("NAME:DIR[:VAR=VALUE]" ..., DIR holding Salvo.Perf.dll, VAR=VALUE put in its
# environment; default "after:src/Salvo.Perf/bin/Release/net10.0"), so before and after share every round.
# C warms up 0.5 s and measures 3 s (sockperf: its own 4 s run). salvo rr warms up at least 0.5 s and then until its
# JIT has compiled nothing for 2 s (--warmup-jit-idle, the default): measured after 0.5 s, tiered compilation of the hot
# loops was still running on the measured cores. CPU per request: CPU time (user + system, from /proc/PID/stat) of
# both ends' processes over 2 s inside the measured window (for salvo rr, from its "measuring" note on), over the
# requests answered then. With SERVER_CPU equal to CLIENT_CPU both ends share one core, which never idles at one
# request in flight: requests/s is then the inverse of the CPU per request, free of the wake-up of a halted vCPU.
# Needs bash, taskset, cc (or UDPLIMIT=a built udplimit), sockperf (SOCKPERF=path) and dotnet; no python.
# ROTATE=1 rotates the order of the points from round to round (below).
# C_AGAIN=1 runs C once more in every round ("c-again", last unless ROTATE): C against itself in the same round,
# the spread any implementation's ratio to C carries on this machine.
# C_METHODS="recvfrom recvmsg recvmmsg" adds C's pair once per receive call ("c-recvmsg" ...: udplimit's -m, a
# blocking call bounded by SO_RCVTIMEO in place of poll then recvfrom): what each call costs at one in flight.
# Usage: benchmarks/rr-one-in-flight/run.sh [OUT]    (ROUNDS=5; SERVER_CPU=1 and CLIENT_CPU=0 place the two ends)
# Then:  python3 benchmarks/rr-one-in-flight/summary.py OUT
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
C=${UDPLIMIT:-}
if [ -z "$C" ]; then
  C=$(mktemp -d)/udplimit
  cc -O2 -Wall -Wextra -o "$C" "$root/src/Salvo.Perf/Lab/c/udplimit.c" || { echo "building the C reference failed" >&2; exit 2; }
fi
SOCKPERF=${SOCKPERF:-sockperf}
BUILDS=${BUILDS:-after:$root/src/Salvo.Perf/bin/Release/net10.0}
for build in $BUILDS; do
  dir=$(echo "$build" | cut -d: -f2)
  [ -f "$dir/Salvo.Perf.dll" ] || { echo "no Salvo.Perf.dll in $dir (build: dotnet build src/Salvo.Perf -c Release)" >&2; exit 2; }
done
command -v "$SOCKPERF" > /dev/null || { echo "sockperf is not installed (SOCKPERF=path)" >&2; exit 2; }
out=${1:-rr-one-in-flight.txt}; : > "$out"
tmp=$(mktemp -d)
port=54000
S=${SERVER_CPU:-1}
K=${CLIENT_CPU:-0}
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

ticks() { # PID...: utime + stime, summed over the processes, in clock ticks
  local total=0 p fields
  for p in "$@"; do
    fields=$(sed 's/^.*) //' "/proc/$p/stat" 2> /dev/null) || continue
    set -- $fields
    total=$((total + ${12} + ${13}))
  done
  echo $total
}
measure_cpu() { # FILE DELAY PID...: ticks over the 2 s window that starts DELAY s from now
  local file=$1 delay=$2; shift 2
  sleep "$delay"; local a; a=$(ticks "$@")
  sleep 2;        local b; b=$(ticks "$@")
  echo "$((b - a))" > "$file"
}
# Every process started here ends by itself; the watchdog ends it after 40 s if it does not (salvo rr's warm-up
# lasts at most 10 s).
watch() { pids+=($1); (sleep 40; kill "$1" 2> /dev/null) > /dev/null 2>&1 & }
field() { grep -o "$1=[0-9.]*" "$2" | head -1; }

c_point() { # [NAME [METHOD]]: "c" unless given (C_AGAIN names its second run in a round "c-again"); METHOD: udplimit's -m
  port=$((port + 1))
  local server client
  taskset -c $S "$C" ppserver -p $port -m "${2:-poll}" -r 512 -t 15 -I 1 > /dev/null 2>&1 & server=$!; watch $server; sleep 0.3
  taskset -c $K "$C" ppclient -p $port -m "${2:-poll}" -n 1 -q 512 -t 3 -w 0.5 > "$tmp/out" 2>&1 & client=$!; watch $client
  measure_cpu "$tmp/cpu" 0.5 $server $client
  wait $client; wait $server
  echo "${1:-c} $round $(field rps "$tmp/out") $(field p50 "$tmp/out") $(field p99 "$tmp/out") ticks=$(cat "$tmp/cpu")" >> "$out"
}

sockperf_point() {
  port=$((port + 1))
  local server client
  taskset -c $S "$SOCKPERF" server -i 127.0.0.1 -p $port > /dev/null 2>&1 & server=$!; watch $server; sleep 0.3
  taskset -c $K "$SOCKPERF" ping-pong -i 127.0.0.1 -p $port -t 4 -m 512 --full-rtt > "$tmp/out" 2>&1 & client=$!; watch $client
  measure_cpu "$tmp/cpu" 0.7 $server $client
  wait $client; kill $server 2> /dev/null; wait $server 2> /dev/null
  # sockperf: "[Valid Duration] RunTime=2.950 sec; SentMessages=N; ReceivedMessages=M" and "percentile 50.000 = X".
  local run received p50 p99
  run=$(grep -o 'RunTime=[0-9.]*' "$tmp/out" | head -1 | cut -d= -f2)
  received=$(grep -o 'ReceivedMessages=[0-9]*' "$tmp/out" | head -1 | cut -d= -f2)
  p50=$(grep 'percentile 50.000' "$tmp/out" | awk '{print $NF}')
  p99=$(grep 'percentile 99.000' "$tmp/out" | awk '{print $NF}')
  echo "sockperf $round rps=$(awk -v n="${received:-0}" -v t="${run:-1}" 'BEGIN{printf "%.0f", n/t}') p50=$p50 p99=$p99 ticks=$(cat "$tmp/cpu")" >> "$out"
}

rr_result() { # JSON file: the result's figures on one line (no python on the measuring machine)
  local json; json=$(tr -d ' \n' < "$1")
  echo "rps=$(echo "$json" | grep -o '"requestsPerSecond":[0-9.]*' | cut -d: -f2)" \
       "p50=$(echo "$json" | grep -o '"p50Microseconds":[0-9.]*' | head -1 | cut -d: -f2)" \
       "p99=$(echo "$json" | grep -o '"p99Microseconds":[0-9.]*' | head -1 | cut -d: -f2)" \
       "lost=$(echo "$json" | grep -o '"lost":[0-9]*' | head -1 | cut -d: -f2)" \
       "warmup=$(echo "$json" | grep -o '"warmupSeconds":[0-9.]*' | tail -1 | cut -d: -f2)" \
       "jit=$(echo "$json" | grep -o '"methodsCompiledWhileMeasuring":[0-9]*' | cut -d: -f2)" \
       "jit_ms=$(echo "$json" | grep -o '"jitMillisecondsWhileMeasuring":[0-9.]*' | cut -d: -f2)" \
       "cpu_us=$(echo "$json" | grep -o '"processCpuMicrosecondsPerRequest":[0-9.]*' | cut -d: -f2)"
}

measure_when_measuring() { # DIR ERR FILE PID...: the 2 s CPU window, once salvo rr's stderr says its window opened
  local dir=$1 stream=$2 file=$3; shift 3
  # A build from before the JIT-settled warm-up (its option name, UTF-16 in the assembly, absent) has a fixed 0.5 s
  # warm-up and no "measuring" event: its window opens once the runtime has started (0.3-0.6 s) and warmed up.
  if ! LC_ALL=C grep -qaP 'j\x00i\x00t\x00-\x00i\x00d\x00l\x00e' "$dir/Salvo.Perf.dll"; then
    measure_cpu "$file" 1.1 "$@"; return
  fi
  local waited=0
  # Not --json-stream's "measuring" event: its interval events are JSON the JIT recompiles as they pass 30 calls,
  # which fell inside the window (162 methods); the note on stderr costs nothing per interval.
  until grep -q 'salvo rr: measuring' "$stream" 2> /dev/null; do
    sleep 0.05; waited=$((waited + 1))
    [ $waited -lt 400 ] || { echo "" > "$file"; return; }
  done
  measure_cpu "$file" 0.2 "$@"
}

rr_point() { # NAME DIR ENV
  local client
  taskset -c $K,$S env ${3:-SALVO_BENCHMARK=1} dotnet "$2/Salvo.Perf.dll" rr -P 1 --request 512 --response 512 -t 3 --warmup 0.5 --client-cpu $K --responder-cpu $S --json > "$tmp/out.json" 2> "$tmp/err" &
  client=$!; watch $client
  measure_when_measuring "$2" "$tmp/err" "$tmp/cpu" $client
  wait $client
  echo "rr:$1 $round $(rr_result "$tmp/out.json") ticks=$(cat "$tmp/cpu")" >> "$out"
}

server_point() { # NAME DIR ENV
  port=$((port + 1))
  local server client
  taskset -c $S env ${3:-SALVO_BENCHMARK=1} dotnet "$2/Salvo.Perf.dll" server -p $port -i 0 > /dev/null 2>&1 & server=$!; watch $server; sleep 1.5
  taskset -c $K env ${3:-SALVO_BENCHMARK=1} dotnet "$2/Salvo.Perf.dll" rr -P 1 --request 512 --response 512 -t 3 --warmup 0.5 --server 127.0.0.1:$port --client-cpu $K --json > "$tmp/out.json" 2> "$tmp/err" & client=$!; watch $client
  measure_when_measuring "$2" "$tmp/err" "$tmp/cpu" $server $client
  wait $client; kill $server 2> /dev/null; wait $server 2> /dev/null
  echo "server:$1 $round $(rr_result "$tmp/out.json") ticks=$(cat "$tmp/cpu")" >> "$out"
}

echo "start $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg) clk_tck $(getconf CLK_TCK) cpus $(nproc) server_cpu $S client_cpu $K" >> "$out"
# The points of one round, in their first order; ROTATE=1 starts round N at the Nth of them (wrapping), so each point
# runs in every position over as many rounds as there are points: on a guest whose speed drifts within a round, a
# point late in every round would otherwise read slower for its place alone.
points=(c_point)
for build in $BUILDS; do points+=("rr_point $(echo "$build" | cut -d: -f1) $(echo "$build" | cut -d: -f2) $(echo "$build" | cut -d: -f3)"); done
points+=(sockperf_point)
for build in $BUILDS; do points+=("server_point $(echo "$build" | cut -d: -f1) $(echo "$build" | cut -d: -f2) $(echo "$build" | cut -d: -f3)"); done
if [ -n "${C_AGAIN:-}" ]; then points+=("c_point c-again"); fi
for method in ${C_METHODS:-}; do points+=("c_point c-$method $method"); done
for round in $(seq 1 "${ROUNDS:-5}"); do
  start=0
  if [ -n "${ROTATE:-}" ]; then start=$(((round - 1) % ${#points[@]})); fi
  for i in $(seq 0 $((${#points[@]} - 1))); do
    ${points[$(((start + i) % ${#points[@]}))]}
  done
done
echo "end $(date -u '+%F %H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"
