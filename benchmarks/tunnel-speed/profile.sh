#!/usr/bin/env bash
# Where the CPU goes in a Salvo <-> Salvo transfer: run.sh's salvo path for one round of SECONDS, and `perf record -g`
# of both tunnel processes for 5 s from a third of the way in; then the report by DSO (libcrypto, the kernel, the
# JIT'd code of the tunnel, the runtime) and the top symbols. DOTNET_PerfMapEnabled=1 lets perf name JIT'd methods
# (/tmp/perf-PID.map). Bounded: run.sh stops by itself; perf records for 5 s.
# usage: profile.sh SALVO BENCHMARKS_DLL OUT_DIR [SECONDS=20]   (as root; the arguments as run.sh's)
set -euo pipefail
salvo=$1 benchmarks=$2 out=$3 seconds=${4:-20}
command -v perf >/dev/null || { echo "profile.sh: perf is not installed" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 PATHS=salvo "$here/run.sh" "$salvo" "$benchmarks" "$out/run" 1 "$seconds" \
  > "$out/run.txt" 2> "$out/run.err" &
runner=$!
trap 'kill "$runner" 2>/dev/null || true' EXIT
ends=""
for _ in $(seq 300); do
  ends=$(pgrep -d, -f "tunnel up $out/run/[ab].conf" || true)
  [[ $ends == *,* ]] && break
  sleep 0.1
done
[[ $ends == *,* ]] || { echo "profile.sh: the two tunnel processes did not start" >&2; exit 1; }
sleep $(( seconds / 3 ))
perf record -F 999 -g -o "$out/perf.data" -p "$ends" -- sleep 5 2> "$out/perf-record.txt"
wait "$runner" || true
trap - EXIT
perf report -i "$out/perf.data" --no-children --sort dso --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
echo
perf report -i "$out/perf.data" --no-children --sort dso,symbol --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
