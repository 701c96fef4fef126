#!/usr/bin/env bash
# The native wireguard-salvo beside the JIT build and wireguard-go, in one run, each the way wg-quick starts it
# ("DAEMON -f IFACE" in a network namespace named with this script's PID): the file's size, launch until the control
# socket answers "wg show", RSS idle, then RSS after "wg setconf" of PEERS peers (random keys, a /32 and a /128 each).
# Prints a Markdown table. usage: run.sh NATIVE_BINARY JIT_APPHOST [PEERS]   (PEERS defaults to 10000)
# Linux, root, ip, wg, wireguard-go, python3.
set -u
native=$1; jit=$2; peers=${3:-10000}
ns=salvond$$
dir=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

"$(dirname "$0")/../peers-file.py" "$peers" > "$dir/peers.conf"
ip netns add "$ns"
ip -n "$ns" link set lo up
now() { date +%s%N; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
size_of() { stat -L -c %s "$1"; }

# One daemon: prints "| name | size | launch ms | idle RSS | RSS with peers | setconf ms |".
measure() {
  local name=$1 binary=$2 size=$3 iface=snd$$${4}
  local start ready idle setconf loaded
  start=$(now)
  WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD=1 ip netns exec "$ns" "$binary" -f "$iface" > "$dir/$iface.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    ip netns exec "$ns" wg show "$iface" > /dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  ready=$((($(now) - start) / 1000000))
  sleep 2
  idle=$(rss "$pid")
  start=$(now)
  ip netns exec "$ns" wg setconf "$iface" "$dir/peers.conf"
  setconf=$((($(now) - start) / 1000000))
  local have
  have=$(ip netns exec "$ns" wg show "$iface" peers | wc -l)
  sleep 2
  loaded=$(rss "$pid")
  printf '| %s | %.1f MB | %d ms | %.1f MB | %.1f MB (%d peers) | %d ms |\n' "$name" "$(echo "$size / 1000000" | bc -l)" \
    "$ready" "$(echo "$idle / 1024" | bc -l)" "$(echo "$loaded / 1024" | bc -l)" "$have" "$setconf"
  kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
  ip -n "$ns" link del "$iface" 2>/dev/null
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(date -u +%FT%TZ)"
echo
echo "| daemon | file size | launch to socket ready | RSS idle | RSS after setconf | wg setconf |"
echo "|---|---|---|---|---|---|"
# The JIT build's size: the apphost, its assemblies and the linux-x64 native libraries it loads (libsodium); the
# shared .NET runtime it also needs (about 70 MB) is not counted.
jit_dir=$(dirname "$jit")
jit_size=$(du -cbL "$jit" "$jit_dir"/*.dll "$jit_dir"/runtimes/linux-x64 2>/dev/null | tail -n 1 | cut -f1)
measure "wireguard-salvo (NativeAOT, one file)" "$native" "$(size_of "$native")" 1
measure "wireguard-salvo (JIT, apphost + dlls)" "$jit" "$jit_size" 2
measure "wireguard-go (Debian)" "$(command -v wireguard-go)" "$(size_of "$(command -v wireguard-go)")" 3
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
