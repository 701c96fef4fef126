#!/usr/bin/env bash
# Two builds of salvo side by side, interleaved: 3 rounds, each runs the before build and then the after build on
# the loopback ratios (socket, salvo, salvo-async, salvo-gso at 64 and 1,380 B), the server echo at 16 requests in
# flight, and (as root, with wireguard-go, wg, iperf3 and ping) the tunnel's Salvo <-> Salvo TCP row and the time a
# 10,000-peer tunnel takes from launch to all its routes (peers-up.sh).
# usage: run.sh BEFORE_SALVO AFTER_SALVO OUT_DIR      (each SALVO a path to the salvo executable)
# BEFORE_UP and AFTER_UP name the command that brings a wg-quick file up for each side (the file and "--name IFACE"
# are appended); they default to "SALVO tunnel up". PEERS sets the peer count (default 10000).
set -euo pipefail
before=$1 after=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
read -r -a before_up <<< "${BEFORE_UP:-$before tunnel up}"
read -r -a after_up <<< "${AFTER_UP:-$after tunnel up}"
peers=${PEERS:-10000}
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
    if [[ "$(id -u)" == 0 ]]; then
      up="${side}_up[@]"
      "$here/peers-up.sh" "$peers" "${!up}" > "$out/peers-$side-$round.txt"
    fi
  done
done
