#!/usr/bin/env bash
# Stock iperf3 -u -P 4 against 'salvo server' builds and against 'iperf3 -s', interleaved, servers on CPU 1 and the
# client on CPU 0: received rate, loss and the server's CPU (user + system over the test's wall time), forward and
# with -R (the server sends, the stock client receives and counts the loss).
# usage: run.sh OUT_FILE SALVO [SALVO ...]        (each SALVO a path to a salvo executable; 3 rounds)
set -euo pipefail
out=$1; shift
port=47900
declare -a names pids ports
for salvo in "$@"; do
  taskset -c 1 "$salvo" server -p $port -i 0 >/dev/null 2>&1 &
  names+=("salvo:$salvo"); pids+=($!); ports+=($port); port=$((port + 1))
done
taskset -c 1 iperf3 -s -p $port >/dev/null 2>&1 &
names+=("iperf3 -s"); pids+=($!); ports+=($port)
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
sleep 2
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
: > "$out"
for round in 1 2 3; do
  for mode in forward reverse; do
    for i in "${!names[@]}"; do
      flag=(); [[ $mode == reverse ]] && flag=(-R)
      c0=$(cpu "${pids[$i]}"); t0=$(date +%s.%N)
      line=$(taskset -c 0 iperf3 -u -c 127.0.0.1 -p "${ports[$i]}" -b 500M -l 1380 -P 4 -t 5 "${flag[@]}" | grep -E 'SUM.*receiver' | sed 's/  */ /g')
      c1=$(cpu "${pids[$i]}"); t1=$(date +%s.%N)
      echo "round=$round mode=$mode server=${names[$i]} cpu=$(echo "($c1 - $c0) / 100 / ($t1 - $t0) * 100" | bc -l | cut -c1-5) load=$(cut -d' ' -f1 /proc/loadavg) $line" | tee -a "$out"
    done
  done
done
