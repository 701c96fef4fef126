#!/bin/bash
# Two builds of the tunnel's TCP fallback side by side, rounds interleaved (before, after, before, after, ...):
#  - speed: one iperf3 TCP stream through each build's tunnel with UDP dropped by nftables (TcpFallback = auto, so
#    every message goes over the fallback's one TCP connection), the receiver's rate;
#  - switching: a ping every 10 ms through each build's tunnel, the tunnel's UDP dropped from second 2 to 5: the
#    longest time without a reply after the drop began, and the time from the drop's end to the log line of the
#    switch back to UDP.
# Two namespaces tfsA and tfsB over a veth pair (198.18.0.1/.2); the before build's tunnel is 198.19.7.0/24 on
# port 51870, the after build's 198.19.8.0/24 on 51871. Linux, root, iperf3, ping, nft, wg (for keys).
# Usage: sudo benchmarks/tunnel-fallback-speed/run.sh BEFORE_SALVO AFTER_SALVO [ROUNDS] [SECONDS]
# KEEP_LOGS=DIR keeps the four tunnels' logs (each line stamped with the time it was read) in DIR.
# Bounded: each iperf3 run has -t SECONDS (default 8) and a timeout, each ping run 8 s; about 2 minutes for 3 rounds.
set -u
before=$1 after=$2 rounds=${3:-3} seconds=${4:-8}
dir=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 1
  ip netns del tfsA 2>/dev/null; ip netns del tfsB 2>/dev/null
  if [ -n "${KEEP_LOGS:-}" ]; then mkdir -p "$KEEP_LOGS"; cp "$dir"/*.log "$KEEP_LOGS"/ 2>/dev/null; fi
  rm -f /run/salvo-tunnel/tfs7a /run/salvo-tunnel/tfs7b /run/salvo-tunnel/tfs8a /run/salvo-tunnel/tfs8b
  rm -rf "$dir"
}
trap cleanup EXIT
. "$(dirname "$0")/../lib/veth-pair.sh"
veth_pair tfsA tfsB tfsva tfsvb

tunnel() { # salvo subnet port
  local ka kb pa pb
  ka=$(wg genkey); kb=$(wg genkey); pa=$(echo "$ka" | wg pubkey); pb=$(echo "$kb" | wg pubkey)
  printf "[Interface]\nPrivateKey = %s\nListenPort = %s\nAddress = 198.19.%s.1/24\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 198.19.%s.2/32\nEndpoint = 198.18.0.2:%s\nTcpFallback = auto\n" \
    "$ka" "$3" "$2" "$pb" "$2" "$3" > "$dir/tfs$2a.conf"
  printf "[Interface]\nPrivateKey = %s\nListenPort = %s\nAddress = 198.19.%s.2/24\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 198.19.%s.1/32\n" \
    "$kb" "$3" "$2" "$pa" "$2" > "$dir/tfs$2b.conf"
  ip netns exec tfsB "$1" tunnel up "$dir/tfs$2b.conf" --name "tfs$2b" 2> >(stamp > "$dir/tfs$2b.log") & pids+=($!)
  sleep 3
  ip netns exec tfsA "$1" tunnel up "$dir/tfs$2a.conf" --name "tfs$2a" 2> >(stamp > "$dir/tfs$2a.log") & pids+=($!)
  sleep 3
}
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done; }
tunnel "$before" 7 51870
tunnel "$after" 8 51871
ip netns exec tfsB iperf3 -s -p 5201 > /dev/null 2>&1 & pids+=($!)
sleep 1
for subnet in 7 8; do ip netns exec tfsA ping -c 3 -i 0.2 -W 2 -q 198.19.$subnet.2 > /dev/null; done
ip netns exec tfsB nft add table inet tfs
ip netns exec tfsB nft add chain inet tfs input '{ type filter hook input priority 0 ; policy accept ; }'
ip netns exec tfsB nft add chain inet tfs output '{ type filter hook output priority 0 ; policy accept ; }'
block() { # port
  ip netns exec tfsB nft add rule inet tfs input udp dport "$1" drop
  ip netns exec tfsB nft add rule inet tfs output udp sport "$1" drop
}
unblock() { ip netns exec tfsB nft flush chain inet tfs input; ip netns exec tfsB nft flush chain inet tfs output; }

speed() { # subnet port -> Mbit/s received over the fallback
  block "$2"
  # The first seconds move the tunnel to TCP; the measured stream starts once a ping gets through.
  timeout 20 bash -c "until ip netns exec tfsA ping -c 1 -W 1 -q 198.19.$1.2 > /dev/null; do :; done"
  timeout $((seconds + 20)) ip netns exec tfsA iperf3 -c "198.19.$1.2" -p 5201 -t "$seconds" -J |
    python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))'
  unblock
  sleep 7 # back on UDP (the before build probes after 5 s) and the old connection's grace period over
}

switch() { # subnet port -> "longest gap between replies from 0.5 s before the block to 1 s after its end (ms), unblock to the switch back (ms)"
  local log=$dir/tfs$1a.log start
  local lines_before; lines_before=$(wc -l < "$log")
  timeout 20 ip netns exec tfsA ping -n -D -i 0.01 -W 1 -w 8 -c 800 "198.19.$1.2" > "$dir/ping.txt" & local ping=$!
  sleep 2; start=$(date +%s.%N); block "$2"
  sleep 3; local cleared; cleared=$(date +%s.%N); unblock
  wait $ping
  python3 - "$dir/ping.txt" "$start" "$cleared" "$log" "$lines_before" <<'PY'
import sys
ping, start, cleared, log, skip = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
times = [float(l[1:l.index("]")]) for l in open(ping) if l.startswith("[") and "bytes from" in l]
window = [t for t in times if start - 0.5 <= t <= cleared + 1]
gap = max((b - a for a, b in zip(window, window[1:])), default=float("nan"))
back = [float(l.split()[0]) for l in open(log).readlines()[skip:] if "moved from TCP to UDP" in l]
back_ms = (back[0] - cleared) * 1000 if back else float("nan")
print("%.0f %.0f" % (gap * 1000, back_ms))
PY
  sleep 6 # the old connection's grace period over, the rate limit of probes passed
}

echo "start $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), CPUs $(nproc), not pinned"
for round in $(seq "$rounds"); do
  echo "round $round speed: before $(speed 7 51870) Mbit/s, after $(speed 8 51871) Mbit/s"
done
for round in $(seq "$rounds"); do
  echo "round $round switch (gap ms, back ms): before $(switch 7 51870), after $(switch 8 51871)"
done
echo "end $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
