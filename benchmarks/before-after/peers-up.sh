#!/usr/bin/env bash
# Time from launch until a tunnel with PEERS peers (two AllowedIPs prefixes each) has all its routes in the kernel,
# then its RSS, for one command that brings a wg-quick file up: run in a network namespace named with this script's
# PID, which it removes at the end. Prints one line: "peers-up SECONDS RSS_KB".
# usage: peers-up.sh PEERS UP_COMMAND...      e.g. peers-up.sh 10000 /path/wireguard-salvo up
# The command gets the file and "--name IFACE" appended. Linux, root, ip, python3.
set -u
peers=$1; shift
ns=salvoba$$
iface=sba$$
dir=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
"$(dirname "$0")/../peers-file.py" "$peers" --address > "$dir/peers.conf"
ip netns add "$ns"
ip -n "$ns" link set lo up
want=$((2 * peers))
now() { date +%s%N; }
start=$(now)
ip netns exec "$ns" "$@" "$dir/peers.conf" --name "$iface" > "$dir/out.log" 2>&1 &
pid=$!
have=0
for _ in $(seq 1200); do
  kill -0 "$pid" 2>/dev/null || break
  # The peers' routes only: the address's own prefix routes are "proto kernel".
  have=$(( $(ip -n "$ns" -4 route show dev "$iface" 2>/dev/null | grep -vc 'proto kernel') + $(ip -n "$ns" -6 route show dev "$iface" 2>/dev/null | grep -vc 'proto kernel') ))
  [ "$have" -ge "$want" ] && break
  sleep 0.05
done
ms=$((($(now) - start) / 1000000))
if [ "$have" -lt "$want" ]; then
  echo "peers-up: $have of $want routes after ${ms} ms; the command said:" >&2; tail -5 "$dir/out.log" >&2
  exit 1
fi
# The pid is the one 'ip netns exec' replaced itself with: the tunnel's own process.
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
printf 'peers-up %d.%03d %s\n' $((ms / 1000)) $((ms % 1000)) "$rss"
