#!/bin/bash
# One tunnel device with PEERS peers (default 10,000) and two AllowedIPs prefixes each, Salvo and wireguard-go with
# the same file, one after the other in a network namespace made for the run (names carry this script's PID):
#   - Salvo: 'salvo tunnel up' (parse, engine, TUN, Address/MTU, routes over rtnetlink); time until its "up" line,
#     counted from the launch (the .NET runtime's start included), routes in the kernel, 'salvo tunnel show' time,
#     'wg show' time when the device has a control socket, process RSS, and the time a SIGTERM takes to end it;
#   - wireguard-go: 'wireguard-go IFACE', 'wg setconf', Address/MTU with ip, the routes with one 'ip -batch'; the
#     same figures.
# Then the engine alone (benchmarks/Salvo.Benchmarks tunnel-peers): parse, build, managed memory per idle peer, tick
# cost, per-packet cost at 1 and PEERS peers. Linux, root, wg, wireguard-go, ip; the .NET SDK to build.
# Usage: sudo benchmarks/tunnel-peers/run.sh [PEERS]   (SALVO_NO_BUILD=1 skips the build; DOTNET=path picks the host)
set -u
peers=${1:-10000}
root=$(cd "$(dirname "$0")/../.." && pwd)
ns=salvopeers$$
salvo_if=sp$$
wg_if=wgp$$
dir=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && sleep 1
  ip netns del "$ns" 2>/dev/null
  rm -f "/run/salvo-tunnel/$salvo_if" "/var/run/wireguard/$wg_if.sock" "/var/run/wireguard/$salvo_if.sock"
  rm -rf "$dir"
}
trap cleanup EXIT
now() { date +%s%N; }
elapsed() { local ms=$((($(now) - $1) / 1000000)); printf '%d.%02d' $((ms / 1000)) $((ms % 1000 / 10)); }

if [ -z "${SALVO_NO_BUILD:-}" ]; then
  dotnet build -c Release "$root/src/Salvo.Perf" > /dev/null && dotnet build -c Release "$root/benchmarks/Salvo.Benchmarks" > /dev/null || exit 1
fi
dotnet=${DOTNET:-dotnet}
salvo="$dotnet $root/src/Salvo.Perf/bin/Release/net10.0/Salvo.Perf.dll"
bench="$dotnet $root/benchmarks/Salvo.Benchmarks/bin/Release/net10.0/Salvo.Benchmarks.dll"

$bench tunnel-peers "$peers" write "$dir/peers.conf" || exit 1
prefixes=$((2 * peers))
ip netns add "$ns"
ip -n "$ns" link set lo up

echo "== salvo tunnel up: $peers peers, $prefixes prefixes"
start=$(now)
ip netns exec "$ns" $salvo tunnel up "$dir/peers.conf" --name "$salvo_if" -t 120 2> "$dir/salvo.log" &
pid=$!
for _ in $(seq 1200); do grep -q " up in " "$dir/salvo.log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
echo "up after $(elapsed "$start") s from launch; the process says: $(grep -o 'up in .* s)' "$dir/salvo.log")"
echo "routes in the kernel: $(ip -n "$ns" -4 route show dev "$salvo_if" | wc -l) IPv4, $(ip -n "$ns" -6 route show dev "$salvo_if" | wc -l) IPv6"
sleep 2
t=$(now); lines=$($salvo tunnel show "$salvo_if" | wc -l); echo "salvo tunnel show: $(elapsed "$t") s, $lines lines"
if [ -S "/var/run/wireguard/$salvo_if.sock" ]; then
  t=$(now); lines=$(ip netns exec "$ns" wg show "$salvo_if" | wc -l); echo "wg show: $(elapsed "$t") s, $lines lines"
fi
echo "RSS: $(awk '/VmRSS/ {print $2, $3}' "/proc/$pid/status")"
t=$(now); kill -TERM "$pid"; wait "$pid"; echo "SIGTERM to exit: $(elapsed "$t") s, exit $?"
pid=

echo "== SIGTERM during the start: $peers peers"
start=$(now)
ip netns exec "$ns" $salvo tunnel up "$dir/peers.conf" --name "$salvo_if" 2> "$dir/salvo-term.log" &
pid=$!
sleep 1.5
kill -TERM "$pid"; wait "$pid"; code=$?
echo "exit $code $(elapsed "$start") s after launch; $(grep -c ' up in ' "$dir/salvo-term.log") 'up' lines"
pid=

echo "== wireguard-go: $peers peers, $prefixes prefixes"
start=$(now)
ip netns exec "$ns" env WG_PROCESS_FOREGROUND=1 wireguard-go "$wg_if" 2> "$dir/wg.log" &
pid=$!
for _ in $(seq 200); do [ -S "/var/run/wireguard/$wg_if.sock" ] && break; sleep 0.05; done
grep -v '^Address' "$dir/peers.conf" > "$dir/setconf.conf"
t=$(now); ip netns exec "$ns" wg setconf "$wg_if" "$dir/setconf.conf"; echo "wg setconf: $(elapsed "$t") s"
ip -n "$ns" address add 198.18.0.1/15 dev "$wg_if"
ip -n "$ns" address add fd00:5a1::1/64 dev "$wg_if"
ip -n "$ns" link set dev "$wg_if" mtu 1420 up
awk -v dev="$wg_if" '/^AllowedIPs/ { gsub(",", ""); for (i = 3; i <= NF; i++) print "route replace " $i " dev " dev }' "$dir/peers.conf" > "$dir/routes.batch"
t=$(now); ip -n "$ns" -batch "$dir/routes.batch"; echo "ip -batch routes: $(elapsed "$t") s"
echo "up after $(elapsed "$start") s from launch"
echo "routes in the kernel: $(ip -n "$ns" -4 route show dev "$wg_if" | wc -l) IPv4, $(ip -n "$ns" -6 route show dev "$wg_if" | wc -l) IPv6"
t=$(now); lines=$(ip netns exec "$ns" wg show "$wg_if" | wc -l); echo "wg show: $(elapsed "$t") s, $lines lines"
echo "RSS: $(awk '/VmRSS/ {print $2, $3}' "/proc/$pid/status")"
kill -TERM "$pid"; wait "$pid" 2>/dev/null
pid=

echo "== the engine alone"
$bench tunnel-peers "$peers"
