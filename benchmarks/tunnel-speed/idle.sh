#!/usr/bin/env bash
# What an idle tunnel costs: `salvo tunnel up` with one peer and no traffic, in a namespace of its own, for two builds
# in interleaved rounds (A, B, A, B, ...); for each, after 5 s to settle, `perf stat` of the whole process over SECONDS:
# CPU time (task-clock), context switches and sched_yield calls. Medians over the rounds.
# usage: idle.sh OUT_DIR ROUNDS SECONDS NAME=SALVO NAME=SALVO   (as root; SALVO the salvo executable)
set -euo pipefail
out=$1 rounds=$2 seconds=$3 a=$4 b=$5
command -v perf >/dev/null || { echo "idle.sh: perf is not installed" >&2; exit 1; }
mkdir -p "$out"
ns=salvo-idle-$$ pid=""
down() {
  [[ -n $pid ]] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  pid=""
  ip netns del "$ns" 2>/dev/null || true
}
trap down EXIT
printf '[Interface]\nPrivateKey = %s\nListenPort = 0\nAddress = 198.19.81.1/24\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 198.19.82.0/24\n' \
  "$(wg genkey)" "$(wg genkey | wg pubkey)" > "$out/idle.conf"
chmod 600 "$out/idle.conf"
for round in $(seq "$rounds"); do
  for side in "$a" "$b"; do
    name=${side%%=*} salvo=${side#*=}
    ip netns add "$ns"
    ip netns exec "$ns" "$salvo" tunnel up "$out/idle.conf" --name si$$ > "$out/${name}_$round.log" 2>&1 &
    pid=$!
    sleep 5
    perf stat -x , -e task-clock,context-switches,syscalls:sys_enter_sched_yield -p "$pid" -- sleep "$seconds" 2> "$out/${name}_$round.txt"
    down
  done
done
python3 - "$out" "$seconds" "${a%%=*}" "${b%%=*}" <<'PY'
import glob, os, statistics, sys
out, seconds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print(f"| build | CPU, ms per s | context switches per s | sched_yield per s | each round (ms per s) |")
print("|---|---:|---:|---:|---|")
for name in names:
    rows = []
    for path in sorted(glob.glob(os.path.join(out, f"{name}_*.txt"))):
        v = {}
        for line in open(path):
            f = line.strip().split(",")
            if len(f) > 2 and f[0].replace(".", "").isdigit():
                v[f[2].split(":")[-1]] = float(f[0])
        rows.append((v.get("task-clock", 0) / seconds, v.get("context-switches", 0) / seconds, v.get("sys_enter_sched_yield", 0) / seconds))
    m = [statistics.median(r[i] for r in rows) for i in range(3)]
    print(f"| {name} | {m[0]:.2f} | {m[1]:.0f} | {m[2]:.0f} | {', '.join(f'{r[0]:.2f}' for r in rows)} |")
PY
