#!/usr/bin/env bash
# Two builds or settings of Salvo <-> Salvo against each other in interleaved rounds (A, B, A, B, ...): each round is
# one run.sh transfer of one path (PATH_NAME, salvo by default, or salvo-tcp for the TCP fallback; 1 round of
# SECONDS), so load from other processes falls on both alike; then the medians of throughput and of the tunnel processes' cores per Gbit/s, and B's ratio to A.
# Each side is NAME=SALVO[,ENV=VALUE...]: the salvo executable and environment variables for its tunnel processes.
# usage: ab.sh BENCHMARKS_DLL OUT_DIR ROUNDS SECONDS NAME=SALVO[,VAR=VALUE...] NAME=SALVO[,VAR=VALUE...]   (as root)
set -euo pipefail
path=${PATH_NAME:-salvo}
benchmarks=$1 out=$2 rounds=$3 seconds=$4 a=$5 b=$6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for round in $(seq "$rounds"); do
  for side in "$a" "$b"; do
    name=${side%%=*} rest=${side#*=}
    IFS=, read -r -a parts <<< "$rest"
    salvo=${parts[0]} env=("${parts[@]:1}")
    echo "round $round, $name: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    env "${env[@]}" PATHS=$path AEAD_ROUNDS=0 "$here/run.sh" "$salvo" "$benchmarks" "$out/${name}_$round" 1 "$seconds" > "$out/${name}_$round.txt" 2> "$out/${name}_$round.err"
  done
done
python3 - "$out" "$path" "${a%%=*}" "${b%%=*}" <<'PY'
import glob, os, re, statistics, sys
out, path_name, names = sys.argv[1], sys.argv[2], sys.argv[3:]
med = {}
for name in names:
    rows = []
    for path in sorted(glob.glob(os.path.join(out, f"{name}_*.txt"))):
        text = open(path).read()
        m = re.search(rf"^\| {re.escape(path_name)} \| ([0-9.]+) \|.*?\| ([0-9.]+) \| ([0-9.]+) \|", open(path).read(), re.M)
        if m:
            rows.append((float(m.group(1)), float(m.group(2))))
        calls = re.search(r"^\| all \| ([0-9.]+) \| ([0-9.]+) \|", open(path).read(), re.M)
        if calls:
            rows[-1] += (float(calls.group(1)), float(calls.group(2)))
    med[name] = [statistics.median(r[i] for r in rows) for i in range(len(rows[0]))]
    print(f"{name}: rounds " + ", ".join(f"{r[0]:.2f} Gbit/s at {r[1]:.2f}" for r in rows) +
          f"; median {med[name][0]:.2f} Gbit/s, {med[name][1]:.2f} cores per Gbit/s" +
          (f", system calls per packet A {med[name][2]:.3f} B {med[name][3]:.3f}" if len(med[name]) > 2 else ""))
a, b = names
print(f"{b} / {a}: throughput {med[b][0] / med[a][0]:.2f}x, cores per Gbit/s {med[b][1] / med[a][1]:.2f}x")
PY
