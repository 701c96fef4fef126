#!/bin/bash
# The tunnel over UDP against the same tunnel over its TCP fallback, side by side, with random loss on the
# underlay: two 'salvo tunnel up' pairs between namespaces sfA and sfB (veth 198.18.0.1/.2), 198.19.5.0/24 with
# TcpFallback = auto (UDP) and 198.19.6.0/24 with TcpFallback = only in A (every message over TCP). Loss comes
# from nftables in B (numgen random, both directions of the veth): this kernel has no netem. Linux, root,
# iperf3, ping, wg (for keys). Usage: sudo benchmarks/tunnel-fallback-loss.sh [path to the salvo executable]
set -u
salvo=${1:-salvo}
dir=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 1
  ip netns del sfA 2>/dev/null; ip netns del sfB 2>/dev/null
  # Killed, 'salvo tunnel up' leaves its status file behind.
  rm -f /run/salvo-tunnel/sfua /run/salvo-tunnel/sfub /run/salvo-tunnel/sfta /run/salvo-tunnel/sftb
  rm -rf "$dir"
}
trap cleanup EXIT
. "$(dirname "$0")/lib/veth-pair.sh"
veth_pair sfA sfB sfva sfvb

tunnel() { # name port subnet TcpFallback-in-A
  local ka kb pa pb
  ka=$(wg genkey); kb=$(wg genkey); pa=$(echo "$ka" | wg pubkey); pb=$(echo "$kb" | wg pubkey)
  printf "[Interface]\nPrivateKey = %s\nListenPort = %s\nAddress = 198.19.%s.1/24\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 198.19.%s.2/32\nEndpoint = 198.18.0.2:%s\nTcpFallback = %s\n" \
    "$ka" "$2" "$3" "$pb" "$3" "$2" "$4" > "$dir/$1a.conf"
  printf "[Interface]\nPrivateKey = %s\nListenPort = %s\nAddress = 198.19.%s.2/24\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 198.19.%s.1/32\n" \
    "$kb" "$2" "$3" "$pa" "$3" > "$dir/$1b.conf"
  # B first, so that A's first TCP dial finds B's listener.
  ip netns exec sfB "$salvo" tunnel up "$dir/$1b.conf" --name "${1}b" 2> "$dir/$1b.log" & pids+=($!)
  sleep 3
  ip netns exec sfA "$salvo" tunnel up "$dir/$1a.conf" --name "${1}a" 2> "$dir/$1a.log" & pids+=($!)
  sleep 3
}
tunnel sfu 51850 5 auto
tunnel sft 51851 6 only
ip netns exec sfB iperf3 -s -p 5201 > /dev/null 2>&1 & pids+=($!)
sleep 1
for target in 198.19.5.2 198.19.6.2; do ip netns exec sfA ping -c 3 -i 0.2 -W 2 -q $target > /dev/null; done
ip netns exec sfB nft add table inet loss
ip netns exec sfB nft add chain inet loss input '{ type filter hook input priority 0 ; policy accept ; }'
ip netns exec sfB nft add chain inet loss output '{ type filter hook output priority 0 ; policy accept ; }'

rate() { # target seconds -> Mbit/s received
  ip netns exec sfA iperf3 -c "$1" -p 5201 -t "$2" -J |
    python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))'
}
ping_under_load() { # target: ping through the tunnel while one iperf3 stream fills it
  ip netns exec sfA iperf3 -c "$1" -p 5201 -t 6 > /dev/null 2>&1 & local load=$!
  sleep 1
  ip netns exec sfA ping -c 300 -i 0.01 -W 2 -q "$1" | tail -2 | tr '\n' ' '
  wait $load
}

echo "start $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for loss in 0 1 5; do
  ip netns exec sfB nft flush chain inet loss input; ip netns exec sfB nft flush chain inet loss output
  if [ "$loss" -gt 0 ]; then
    ip netns exec sfB nft add rule inet loss input iifname sfvb numgen random mod 100 '<' "$loss" drop
    ip netns exec sfB nft add rule inet loss output oifname sfvb numgen random mod 100 '<' "$loss" drop
  fi
  for round in 1 2 3; do
    echo "loss $loss %, round $round: over UDP $(rate 198.19.5.2 6) Mbit/s, over TCP $(rate 198.19.6.2 6) Mbit/s"
  done
  echo "loss $loss %, ping under load over UDP: $(ping_under_load 198.19.5.2)"
  echo "loss $loss %, ping under load over TCP: $(ping_under_load 198.19.6.2)"
done
echo "end $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
