#!/bin/bash
# A storm of new handshakes at one engine with PEERS peers (default 1,000,000): INITIATORS of them (default 10,000)
# send their first initiation within one second, get through the cookie round once the engine is under load, and
# confirm their sessions, while one established peer's traffic runs both ways through a thread that plays the
# device's inbound loop; the handshakes go through the device's handshake queue and thread. See
# benchmarks/Salvo.Benchmarks/HandshakeStorm.cs. In one process: no sockets, no namespace, no root.
# With BEFORE=CHECKOUT (a worktree of older code, e.g. `git worktree add --detach ../base 921dfc5`) this script copies
# the storm's benchmark files into it, with before/HandshakeStormThread.cs in place of the queue (older code answers
# handshakes inline on the inbound thread), builds it in Release, and runs the two builds alternately, one storm per
# process, ROUNDS times each (default 3). The copy overwrites those files in CHECKOUT: use a throwaway worktree.
# Usage: benchmarks/handshake-storm/run.sh [PEERS] [INITIATORS]   (SALVO_NO_BUILD=1 skips the builds; DOTNET=path picks the host)
set -u
peers=${1:-1000000}
initiators=${2:-10000}
rounds=${ROUNDS:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
dotnet=${DOTNET:-dotnet}

if [ -z "${SALVO_NO_BUILD:-}" ]; then
  dotnet build -c Release "$root/benchmarks/Salvo.Benchmarks" > /dev/null || exit 1
  if [ -n "${BEFORE:-}" ]; then
    bench="$BEFORE/benchmarks/Salvo.Benchmarks"
    cp "$root/benchmarks/Salvo.Benchmarks/HandshakeStorm.cs" "$root/benchmarks/Salvo.Benchmarks/EstablishedPeer.cs" \
       "$root/benchmarks/Salvo.Benchmarks/TunnelPeerScale.cs" "$bench/" || exit 1
    cp "$root/benchmarks/handshake-storm/before/HandshakeStormThread.cs" "$bench/HandshakeStormThread.cs" || exit 1
    dotnet build -c Release "$bench" > /dev/null || exit 1
  fi
fi

storm() {
  echo "== $1 ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
  # A million-peer engine takes about a minute to build here under load; ten minutes bounds a stuck run.
  timeout 600 $dotnet "$2/benchmarks/Salvo.Benchmarks/bin/Release/net10.0/Salvo.Benchmarks.dll" handshake-storm "$peers" "$initiators" 1
}

for round in $(seq "$rounds"); do
  storm "this build, round $round" "$root"
  if [ -n "${BEFORE:-}" ]; then
    storm "before ($BEFORE), round $round" "$BEFORE"
  fi
done
