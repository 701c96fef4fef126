#!/bin/bash
# A storm of new handshakes at one engine with PEERS peers (default 1,000,000): INITIATORS of them (default 10,000)
# send their first initiation within one second, get through the cookie round once the engine is under load, and
# confirm their sessions, while one established peer's traffic runs both ways on another thread; see
# benchmarks/Salvo.Benchmarks/HandshakeStorm.cs. Engine-side, in one process: no sockets, no namespace, no root.
# With BEFORE=CHECKOUT (a worktree of the older code holding the same benchmark files, built in Release) the two
# builds run alternately, one storm per process, ROUNDS times each (default 3).
# Usage: benchmarks/handshake-storm/run.sh [PEERS] [INITIATORS]   (SALVO_NO_BUILD=1 skips the build; DOTNET=path picks the host)
set -u
peers=${1:-1000000}
initiators=${2:-10000}
rounds=${ROUNDS:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
dotnet=${DOTNET:-dotnet}

if [ -z "${SALVO_NO_BUILD:-}" ]; then
  dotnet build -c Release "$root/benchmarks/Salvo.Benchmarks" > /dev/null || exit 1
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
