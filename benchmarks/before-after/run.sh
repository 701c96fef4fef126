#!/usr/bin/env bash
# Two builds of salvo side by side, interleaved: 3 rounds, each runs the before build and then the after build on
# the loopback ratios (socket, salvo, salvo-async, salvo-gso at 64 and 1,380 B), the server echo at 16 requests in
# flight, and (as root, with wireguard-go, wg, iperf3 and ping) the tunnel's Salvo <-> Salvo TCP row.
# usage: run.sh BEFORE_SALVO AFTER_SALVO OUT_DIR      (each SALVO a path to the salvo executable)
set -euo pipefail
before=$1 after=$2 out=$3
mkdir -p "$out"
for round in 1 2 3; do
  for side in before after; do
    salvo=${!side}
    echo "round $round $side: $(cat /proc/loadavg)" >&2
    "$salvo" loopback -m socket,salvo,salvo-async,salvo-gso -l 64,1380 -t 1 --repeat 1 --json > "$out/loopback-$side-$round.json"
    "$salvo" rr --responder server -P 16 -t 3 --json > "$out/rr-$side-$round.json"
    if [[ "$(id -u)" == 0 ]] && command -v wireguard-go >/dev/null; then
      "$salvo" tunnel bench -t 3 --rounds 1 --json > "$out/tunnel-$side-$round.json"
    fi
  done
done
