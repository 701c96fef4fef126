#!/usr/bin/env bash
# Salvo's tunnel sending to wireguard-go and to Salvo, two builds side by side, interleaved: per round and build, a
# tunnel Salvo (A) <-> wireguard-go (B), then Salvo (A) <-> Salvo (B, the same build), each with one iperf3 TCP stream
# A to B and B to A (-R). Per run: the receiver's Mbit/s, the TCP sender's retransmits, and the UDP receive-buffer
# drops (Udp RcvbufErrors of /proc/net/snmp) in the receiving end's namespace. Medians over the rounds on stdout.
# Two namespaces over a veth (198.18.0.1/.2, MTU 1500), tunnel MTU 1420, 198.19.0.0/24; nothing is pinned.
# usage: run.sh BEFORE_SALVO AFTER_SALVO OUT_DIR [ROUNDS] [SECONDS]    (as root; each SALVO a salvo executable)
#        PEERS="salvo" run.sh ...     only the Salvo <-> Salvo tunnel (default: "wireguard-go salvo")
set -euo pipefail
before=$1 after=$2 out=$3 rounds=${4:-3} seconds=${5:-5}
for tool in ip wg wireguard-go iperf3 python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is not installed" >&2; exit 1; }
done
mkdir -p "$out"
. "$(dirname "$0")/../lib/veth-pair.sh"
a=salvo-interop-$$-a b=salvo-interop-$$-b
pids=()

down() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
  ip netns del "$a" 2>/dev/null || true
  ip netns del "$b" 2>/dev/null || true
}
trap down EXIT

wait_for() { # namespace device [address]
  for _ in $(seq 150); do
    if ip -n "$1" address show dev "$2" 2>/dev/null | grep -q "${3:-$2}"; then return 0; fi
    sleep 0.1
  done
  echo "run.sh: $2 did not come up in $1" >&2
  exit 1
}

up() { # salvo peer(wireguard-go|salvo)
  local salvo=$1 peer=$2 keya keyb
  veth_pair "$a" "$b" sia$$ sib$$
  keya=$(wg genkey) keyb=$(wg genkey)
  printf '[Interface]\nPrivateKey = %s\nListenPort = 51820\nAddress = 198.19.0.1/24\nMTU = 1420\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 198.19.0.2/32\nEndpoint = 198.18.0.2:51820\n' \
    "$keya" "$(wg pubkey <<<"$keyb")" > "$out/a.conf"
  ip netns exec "$a" "$salvo" tunnel up "$out/a.conf" --name sia > "$out/a.log" 2>&1 &
  pids+=($!)
  wait_for "$a" sia 198.19.0.1
  if [[ $peer == salvo ]]; then
    printf '[Interface]\nPrivateKey = %s\nListenPort = 51820\nAddress = 198.19.0.2/24\nMTU = 1420\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 198.19.0.1/32\nEndpoint = 198.18.0.1:51820\n' \
      "$keyb" "$(wg pubkey <<<"$keya")" > "$out/b.conf"
    ip netns exec "$b" "$salvo" tunnel up "$out/b.conf" --name sib > "$out/b.log" 2>&1 &
    pids+=($!)
    wait_for "$b" sib 198.19.0.2
  else
    WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD=1 ip netns exec "$b" wireguard-go -f sib > "$out/b.log" 2>&1 &
    pids+=($!)
    wait_for "$b" sib
    printf '[Interface]\nPrivateKey = %s\nListenPort = 51820\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 198.19.0.1/32\nEndpoint = 198.18.0.1:51820\n' \
      "$keyb" "$(wg pubkey <<<"$keya")" > "$out/b.conf"
    ip netns exec "$b" wg setconf sib "$out/b.conf"
    ip -n "$b" address add 198.19.0.2/24 dev sib
    ip -n "$b" link set sib mtu 1420 up
  fi
  ip netns exec "$b" iperf3 -s -p 5201 > /dev/null 2>&1 &
  pids+=($!)
  # The first pings start the handshake; on a loaded host it can take more than one 5 s retry.
  for _ in $(seq 30); do
    if ip netns exec "$a" ping -n -q -c 1 -W 1 198.19.0.2 > /dev/null; then return 0; fi
  done
  echo "run.sh: no ping through the tunnel within 30 tries; the ends' logs: $out/a.log, $out/b.log" >&2
  exit 1
}

rcvbuf_errors() { ip netns exec "$1" awk '/^Udp:/ { if (seen) print $6; seen = 1 }' /proc/net/snmp; }

measure() { # side peer round direction(a-b|b-a)
  local receiver=$b flag=() file="$out/${1}_${2}_${3}_${4}.json" drops
  if [[ $4 == b-a ]]; then receiver=$a flag=(-R); fi
  drops=$(rcvbuf_errors "$receiver")
  ip netns exec "$a" iperf3 -c 198.19.0.2 -p 5201 -t "$seconds" -J "${flag[@]}" > "$file"
  echo "$1 $2 $4 $(( $(rcvbuf_errors "$receiver") - drops ))" >> "$out/drops.txt"
}

rm -f "$out/drops.txt"
for round in $(seq "$rounds"); do
  for side in before after; do
    for peer in ${PEERS:-wireguard-go salvo}; do
      echo "round $round $side, salvo <-> $peer: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
      up "${!side}" "$peer"
      measure "$side" "$peer" "$round" a-b
      measure "$side" "$peer" "$round" b-a
      down
    done
  done
done

python3 - "$out" <<'PY'
import json, statistics, sys, glob, os
out = sys.argv[1]
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*_*_*_*.json"))):
    side, peer, _, direction = os.path.basename(path)[:-len(".json")].split("_")
    end = json.load(open(path))["end"]
    runs.setdefault((side, peer, direction), []).append((end["sum_received"]["bits_per_second"] / 1e6, end["sum_sent"].get("retransmits", 0)))
drops = {}
for line in open(os.path.join(out, "drops.txt")):
    side, peer, direction, count = line.split()
    drops.setdefault((side, peer, direction), []).append(int(count))
names = {("wireguard-go", "a-b"): "salvo -> wireguard-go", ("wireguard-go", "b-a"): "wireguard-go -> salvo",
         ("salvo", "a-b"): "salvo -> salvo (A to B)", ("salvo", "b-a"): "salvo -> salvo (B to A)"}
print("| direction | build | TCP Mbit/s | retransmits | receiver's UDP buffer drops | each run: Mbit/s / retransmits |")
print("|---|---|---:|---:|---:|---|")
for peer in ("wireguard-go", "salvo"):
    for direction in ("a-b", "b-a"):
        for side in ("before", "after"):
            samples = runs.get((side, peer, direction), [])
            if not samples:
                continue
            mbps = statistics.median(s[0] for s in samples)
            retr = statistics.median(s[1] for s in samples)
            dropped = statistics.median(drops.get((side, peer, direction), [0]))
            spread = ", ".join(f"{s[0]:,.0f}/{s[1]:,}" for s in samples)
            print(f"| {names[(peer, direction)]} | {side} | {mbps:,.0f} | {retr:,.0f} | {dropped:,.0f} | {spread} |")
PY
