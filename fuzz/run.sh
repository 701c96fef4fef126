#!/usr/bin/env bash
# Runs one fuzz target under afl-fuzz for a while: fuzz/run.sh TARGET SECONDS
#
# Builds fuzz/Salvo.Fuzz, copies its output to fuzz/out/TARGET/bin (so that two targets can run at once), instruments
# the assemblies under test there with SharpFuzz (the local dotnet tool in .config/dotnet-tools.json, restored if
# missing), runs afl-fuzz from the seeds in fuzz/corpus/TARGET, then prints what the run did and copies each new
# crashing input to fuzz/findings/TARGET/ for triage (replay one with:
# dotnet fuzz/Salvo.Fuzz/bin/Release/net10.0/Salvo.Fuzz.dll TARGET fuzz/findings/TARGET/FILE; the instrumented copy
# in fuzz/out runs only under afl-fuzz, whose shared memory its probes write to).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -ne 2 || ! "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: fuzz/run.sh TARGET SECONDS" >&2
  exit 2
fi
target="$1"
seconds="$2"
if [[ ! -d "fuzz/corpus/$target" ]]; then
  echo "no seeds for '$target'; targets: $(ls fuzz/corpus | tr '\n' ' ')" >&2
  exit 2
fi
command -v afl-fuzz >/dev/null || { echo "afl-fuzz is not installed (Debian: apt-get install afl++)" >&2; exit 2; }

work="${SALVO_FUZZ_WORK:-fuzz/out}/$target"
bin="$work/bin"
findings="$work/afl"

dotnet tool restore >/dev/null
# SALVO_FUZZ_BUILD names a finished build to copy instead (a campaign builds once, then runs targets side by side).
build="${SALVO_FUZZ_BUILD:-}"
if [[ -z "$build" ]]; then
  dotnet build fuzz/Salvo.Fuzz -c Release -v quiet -nologo 2>&1 | grep -E "error|warn" && exit 1
  build=fuzz/Salvo.Fuzz/bin/Release/net10.0
fi
rm -rf "$bin"
mkdir -p "$bin"
cp -r "$build/." "$bin/"

# The assemblies that hold the parsers; the fuzz project, SharpFuzz and the packages stay uninstrumented, so afl's
# edges are the project's own branches.
for assembly in Salvo.dll Salvo.Tunnel.dll Salvo.Perf.dll; do
  dotnet tool run sharpfuzz "$bin/$assembly" >/dev/null
done

rm -rf "$findings"
# SharpFuzz's documented settings: no native binary to check (AFL_SKIP_BIN_CHECK), no memory limit for the runtime
# (-m none), and a timeout that covers the runtime's start (-t, ms). The rest: the machine is shared, so afl takes no
# core of its own and does not ask for the performance governor; crashes are .NET exceptions, not core dumps.
status=0
AFL_SKIP_BIN_CHECK=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
  timeout --signal=INT --kill-after=60 "$((seconds + 120))" \
  afl-fuzz -i "fuzz/corpus/$target" -o "$findings" -t 10000 -m none -V "$seconds" -- dotnet "$bin/Salvo.Fuzz.dll" "$target" \
  >"$work/afl-fuzz.log" 2>&1 || status=$?

stats="$findings/default/fuzzer_stats"
if [[ ! -f "$stats" ]]; then
  echo "afl-fuzz did not start (exit $status); the end of $work/afl-fuzz.log:" >&2
  tail -20 "$work/afl-fuzz.log" >&2
  exit 1
fi

stat() { awk -F' *: *' -v key="$1" '$1 == key { print $2 }' "$stats"; }
crashes="$(stat saved_crashes)"
echo "target:        $target"
echo "seconds:       $(stat run_time)"
echo "executions:    $(stat execs_done) ($(stat execs_per_sec)/s)"
echo "edges covered: $(stat edges_found) of $(stat total_edges) (bitmap_cvg $(stat bitmap_cvg))"
echo "corpus:        $(stat corpus_count) inputs"
echo "crashes:       ${crashes:-0}"
echo "hangs:         $(stat saved_hangs)"

shopt -s nullglob
new=0
for crash in "$findings"/default/crashes/id:*; do
  mkdir -p "fuzz/findings/$target"
  name="crash-$(sha1sum "$crash" | cut -c1-12).bin"
  if [[ ! -f "fuzz/findings/$target/$name" ]]; then
    cp "$crash" "fuzz/findings/$target/$name"
    new=$((new + 1))
  fi
done
echo "new findings:  $new (in fuzz/findings/$target/)"
