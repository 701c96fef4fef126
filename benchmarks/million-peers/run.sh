#!/bin/bash
# A tunnel device driven through its wg control socket with stock wg, at PEERS peers (default 1,000,000): Salvo's
# daemon (wireguard-salvo -f) and wireguard-go in the same run, each in a network namespace this script makes (names
# carry its PID) and removes. Per implementation, one line:
#   wg setconf of PEERS peers (seconds), RSS growth it caused per peer (bytes; VmRSS after minus VmRSS of the empty
#   device), wg show dump of them (seconds, lines) with the RSS growth during it (peak VmRSS sampled every 20 ms minus
#   the VmRSS before it), and wg set of one peer among them (milliseconds, median of 5, beside the time 'ip netns
#   exec' takes to start 'wg --version', the floor under it).
# Then Salvo's start from a wg-quick file with PEERS peers ('wireguard-salvo up', every peer inside the interface's
# address prefix, so no peer route): time from launch to its "up" line and its RSS.
# wireguard-go runs at WG_GO_PEERS peers (default: PEERS, capped at 60,000: wireguard-go refuses a peer past 65,536,
# its device.MaxPeers, "too many peers"), and Salvo once more at that count (not with ONLY=salvo); each line says
# which count it ran.
# ROUNDS=N repeats the daemons' lines N times, alternating them (default 1); BEFORE=PATH adds another wireguard-salvo
# build (an older checkout's) to each round, at wireguard-go's peer count, or at PEERS with ONLY=salvo (no wireguard-go
# in the run, so the two builds are compared at the count that matters).
# Linux, root, wg, wireguard-go, ip, python3; the .NET SDK to build. Bounded: every wait has a limit.
# Each setconf and dump also prints the CPU seconds the daemon spent on it (/proc/PID/stat utime + stime, taken
# just before and just after the wg command): on a machine others are loading, the figure that load moves least. The
# dump also prints wg's own CPU seconds (user + system): parsing the daemon's answer and printing it, the part of the
# dump's time no daemon can take away.
# Usage: sudo benchmarks/million-peers/run.sh [PEERS]   (SALVO_NO_BUILD=1 skips the build; ONLY=salvo|wireguard-go;
#        NO_UP=1 skips the start from a file; SALVO_DAEMON=PATH measures another wireguard-salvo build)
set -u
peers=${1:-1000000}
wg_go_peers=${WG_GO_PEERS:-$((peers < 60000 ? peers : 60000))}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ns=salvomil$$
iface=smil$$
dir=$(mktemp -d)
pid=
sampler=
cleanup() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  rm -f "/var/run/wireguard/$iface.sock"
  rm -rf "$dir"
}
trap cleanup EXIT
now() { date +%s%N; }
ms_since() { echo $((($(now) - $1) / 1000000)); }
seconds() { printf '%d.%02d' $(($1 / 1000)) $(($1 % 1000 / 10)); }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

if [ -z "${SALVO_NO_BUILD:-}" ]; then
  dotnet build -c Release "$root/src/Salvo.WireGuard" > /dev/null || exit 1
fi
daemon="${SALVO_DAEMON:-$root/src/Salvo.WireGuard/bin/Release/net10.0/wireguard-salvo}"
# CPU seconds (user + system) a process has used, in hundredths: what it costs, whatever else the machine runs.
cpu_cs() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# One implementation: start it on an empty device, configure COUNT peers from FILE, dump, set one peer, stop it.
measure() {
  local name=$1 count=$2 file=$3; shift 3
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip netns exec "$ns" "$@" "$iface" > "$dir/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ -S "/var/run/wireguard/$iface.sock" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  if [ ! -S "/var/run/wireguard/$iface.sock" ]; then echo "$name: no control socket; it said:"; tail -5 "$dir/$name.log"; return 1; fi
  sleep 1
  local empty; empty=$(rss_kb "$pid")
  local t; t=$(now)
  local c; c=$(cpu_cs "$pid")
  timeout 300 ip netns exec "$ns" wg setconf "$iface" "$file" || { echo "$name: wg setconf failed"; tail -5 "$dir/$name.log"; }
  local setconf_ms; setconf_ms=$(ms_since "$t")
  local setconf_cpu=$(($(cpu_cs "$pid") - c))
  sleep 2
  local after; after=$(rss_kb "$pid")
  ( peak=0; while :; do r=$(rss_kb "$pid"); [ "$r" -gt "$peak" ] && peak=$r && echo "$peak" > "$dir/peak"; sleep 0.02; done ) &
  sampler=$!
  t=$(now)
  c=$(cpu_cs "$pid")
  # The lines counted as they arrive, and wg's own CPU seconds (its parsing and printing), which no daemon can make
  # smaller: the floor under the dump's time on this machine. Python's start adds about 20 ms to the time.
  local counted; counted=$(timeout 300 python3 -c '
import resource, subprocess, sys
wg = subprocess.Popen(["ip", "netns", "exec", sys.argv[1], "wg", "show", sys.argv[2], "dump"], stdout=subprocess.PIPE)
lines = sum(chunk.count(b"\n") for chunk in iter(lambda: wg.stdout.read(1 << 20), b""))
wg.wait()
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(lines, "%.2f" % (used.ru_utime + used.ru_stime))' "$ns" "$iface")
  local dump_ms; dump_ms=$(ms_since "$t")
  local lines=${counted% *} wg_cpu=${counted#* }
  local dump_cpu=$(($(cpu_cs "$pid") - c))
  kill "$sampler"; wait "$sampler" 2>/dev/null; sampler=
  local peak; peak=$(cat "$dir/peak" 2>/dev/null || echo "$after")
  # One peer from the middle of the file: new AllowedIPs, endpoint and keepalive, five times.
  local key; key=$(grep -m "$((count / 2))" '^PublicKey' "$file" | tail -1 | awk '{print $3}')
  local sets=()
  for i in 1 2 3 4 5; do
    t=$(now)
    ip netns exec "$ns" wg set "$iface" peer "$key" allowed-ips "10.255.255.$i/32,fd00:5a1::ffff:$i/128" endpoint "127.0.0.1:$((20000 + i))" persistent-keepalive 0
    sets+=($((($(now) - t) / 1000)))
  done
  local set_us; set_us=$(printf '%s\n' "${sets[@]}" | sort -n | sed -n 3p)
  # What starting 'ip netns exec' and a program costs here, the floor under every 'wg set' above.
  local starts=()
  for i in 1 2 3 4 5; do t=$(now); ip netns exec "$ns" wg --version > /dev/null; starts+=($((($(now) - t) / 1000))); done
  local start_us; start_us=$(printf '%s\n' "${starts[@]}" | sort -n | sed -n 3p)
  printf '%-13s %9d peers  setconf %6s s (daemon CPU %s s)  RSS %6d B/peer  dump %6s s (daemon CPU %s s, wg CPU %s s; %d lines, RSS +%d MB)  set one %d.%03d ms (a process start alone %d.%03d ms)\n' \
    "$name" "$count" "$(seconds "$setconf_ms")" "$(seconds $((setconf_cpu * 10)))" $(((after - empty) * 1024 / count)) "$(seconds "$dump_ms")" "$(seconds $((dump_cpu * 10)))" "$wg_cpu" "$lines" \
    $(((peak - after) / 1024)) $((set_us / 1000)) $((set_us % 1000)) $((start_us / 1000)) $((start_us % 1000))
  kill -TERM "$pid"; timeout 60 tail --pid="$pid" -f /dev/null; pid=
  ip netns del "$ns"
}

"$here/peers.py" "$peers" > "$dir/salvo.conf"
if [ "$wg_go_peers" -eq "$peers" ]; then cp "$dir/salvo.conf" "$dir/wg-go.conf"; else "$here/peers.py" "$wg_go_peers" > "$dir/wg-go.conf"; fi

for round in $(seq "${ROUNDS:-1}"); do
  echo "== round $round"
  if [ "${ONLY:-}" != wireguard-go ]; then
    measure wireguard-salvo "$peers" "$dir/salvo.conf" "$daemon" -f
    if [ "$wg_go_peers" -ne "$peers" ] && [ "${ONLY:-}" != salvo ]; then measure wireguard-salvo "$wg_go_peers" "$dir/wg-go.conf" "$daemon" -f; fi
  fi
  if [ -n "${BEFORE:-}" ] && [ "${ONLY:-}" = salvo ]; then measure salvo-before "$peers" "$dir/salvo.conf" "$BEFORE" -f
  elif [ -n "${BEFORE:-}" ]; then measure salvo-before "$wg_go_peers" "$dir/wg-go.conf" "$BEFORE" -f; fi
  if [ "${ONLY:-}" != salvo ]; then
    measure wireguard-go "$wg_go_peers" "$dir/wg-go.conf" env WG_PROCESS_FOREGROUND=1 wireguard-go
  fi
done

if [ "${ONLY:-}" != wireguard-go ] && [ -z "${NO_UP:-}" ]; then
  "$here/peers.py" "$peers" --address > "$dir/up.conf"
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  t=$(now)
  ip netns exec "$ns" "$daemon" up "$dir/up.conf" --name "$iface" -t 600 > "$dir/up.log" 2>&1 &
  pid=$!
  for _ in $(seq 6000); do grep -q " up in " "$dir/up.log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  up_ms=$(ms_since "$t")
  printf 'wireguard-salvo up: %d peers from a file, up %s s after launch, RSS %d MB, %d peer routes; it says: %s\n' "$peers" \
    "$(seconds "$up_ms")" $(($(rss_kb "$pid") / 1024)) "$(ip -n "$ns" route show dev "$iface" 2>/dev/null | grep -vc 'proto kernel')" \
    "$(grep -o 'up in [^)]*)' "$dir/up.log" || tail -2 "$dir/up.log")"
  kill -TERM "$pid"; timeout 60 tail --pid="$pid" -f /dev/null; pid=
fi
