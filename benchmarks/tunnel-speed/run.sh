#!/usr/bin/env bash
# The tunnel against its cipher: one iperf3 TCP stream A to B over the plain veth, Salvo <-> Salvo,
# wireguard-go <-> wireguard-go and Salvo over its TCP fallback (UDP to the tunnel port dropped by nftables in B from
# the start, so `TcpFallback = auto` moves to TCP), rounds interleaved (each round runs every path once), and the
# CPU the two tunnel processes spent per Gbit/s: utime + stime of every thread (/proc/PID/task/*/stat, proc(5))
# between a third and two thirds of each transfer, divided by that window and by the rate iperf3's receiver measured
# in it. Then, rounds interleaved with `openssl speed -evp chacha20-poly1305 -bytes 1420` (one EVP_CipherUpdate per
# packet on a context set up once) and the same with -aead (a nonce, 13 bytes of associated data and a final per
# packet, as TLS does; OpenSSL's own tag is not read), the tunnel's own seal and
# open of a 1,420-byte packet in CPU time (Salvo.Benchmarks aead-cost; with BEFORE_BENCHMARKS also an older build's),
# and, where cc is installed, the same OpenSSL calls from C (evp-sequence.c): the update alone and the whole seal.
# Last, where perf is installed, one more Salvo <-> Salvo transfer with perf counting each end's system calls (the
# sys_enter tracepoints of the calls a data path makes) over the same middle third, per data packet A sent (TCP
# payload / 1,368, the MSS through a 1,420-byte MTU), and each thread's context switches in that window (proc(5)
# status); counting slows the run, so its rate is in no table.
# Medians over the rounds on stdout; every run's raw output in OUT_DIR.
# Two namespaces over a veth (198.18.0.1/.2, MTU 1500), tunnel MTU 1420, 198.19.0.0/24; nothing is pinned: both
# tunnel ends and both iperf3 ends share the host's CPUs.
# usage: run.sh SALVO BENCHMARKS_DLL OUT_DIR [ROUNDS=3] [SECONDS=9]   (as root; SALVO the salvo executable,
#        BENCHMARKS_DLL benchmarks/Salvo.Benchmarks/bin/Release/net10.0/Salvo.Benchmarks.dll)
#        BEFORE_BENCHMARKS=DLL run.sh ...   the AEAD rows also for an older build of Salvo.Benchmarks (with aead-cost)
#        PATHS="salvo wireguard-go" run.sh ...   a subset of veth, salvo, wireguard-go, salvo-tcp (default: all four)
#        AEAD_ROUNDS=0 run.sh ...   no AEAD rows (the rounds of aead-cost and openssl speed; default: ROUNDS)
set -euo pipefail
salvo=$1 benchmarks=$2 out=$3 rounds=${4:-3} seconds=${5:-9}
for tool in ip wg wireguard-go iperf3 nft openssl python3 dotnet; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is not installed" >&2; exit 1; }
done
mkdir -p "$out"
a=salvo-speed-$$-a b=salvo-speed-$$-b
pids=() tunnel_pids=()

down() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=() tunnel_pids=()
  ip netns del "$a" 2>/dev/null || true
  ip netns del "$b" 2>/dev/null || true
}
trap down EXIT

wait_for() { # namespace device [address]
  for _ in $(seq 150); do
    if ip -n "$1" address show dev "$2" 2>/dev/null | grep -q "${3:-$2}"; then return 0; fi
    sleep 0.1
  done
  echo "run.sh: $2 did not come up in $1" >&2
  exit 1
}

conf() { # private-key peer-public-key own-address peer-address [endpoint]
  printf '[Interface]\nPrivateKey = %s\nListenPort = 51820\n' "$1"
  [[ -n $3 ]] && printf 'Address = %s/24\nMTU = 1420\n' "$3"
  printf '\n[Peer]\nPublicKey = %s\nAllowedIPs = %s/32\n' "$2" "$4"
  [[ -n ${5:-} ]] && printf 'Endpoint = %s\n' "$5"
  return 0
}

up() { # path: veth | salvo | wireguard-go | salvo-tcp
  local path=$1 keya keyb end ns key peer own other endpoint
  ip netns add "$a"
  ip netns add "$b"
  ip link add ssa$$ mtu 1500 type veth peer name ssb$$ mtu 1500
  ip link set ssa$$ netns "$a"
  ip link set ssb$$ netns "$b"
  ip -n "$a" address add 198.18.0.1/24 dev ssa$$
  ip -n "$b" address add 198.18.0.2/24 dev ssb$$
  for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
  ip -n "$a" link set ssa$$ up
  ip -n "$b" link set ssb$$ up
  if [[ $path == salvo-tcp ]]; then
    ip netns exec "$b" nft -f - <<NFT
table inet salvo_speed_$$ {
  chain input { type filter hook input priority 0; policy accept; udp dport 51820 drop; }
  chain output { type filter hook output priority 0; policy accept; udp sport 51820 drop; }
}
NFT
  fi
  ip netns exec "$b" iperf3 -s -p 5201 > /dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do
    if ip netns exec "$b" ss -ltn | grep -q ':5201 '; then break; fi
    sleep 0.1
  done
  target=198.18.0.2
  [[ $path == veth ]] && return 0
  target=198.19.0.2
  keya=$(wg genkey) keyb=$(wg genkey)
  for end in a b; do
    if [[ $end == a ]]; then ns=$a key=$keya peer=$keyb own=198.19.0.1 other=198.19.0.2 endpoint=198.18.0.2:51820
    else ns=$b key=$keyb peer=$keya own=198.19.0.2 other=198.19.0.1 endpoint=""; fi
    if [[ $path == wireguard-go ]]; then
      WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD=1 ip netns exec "$ns" wireguard-go -f ss$end > "$out/$end.log" 2>&1 &
      pids+=($!) tunnel_pids+=($!)
      wait_for "$ns" ss$end
      conf "$key" "$(wg pubkey <<<"$peer")" "" "$other" "$endpoint" > "$out/$end.conf"
      ip netns exec "$ns" wg setconf ss$end "$out/$end.conf"
      ip -n "$ns" address add $own/24 dev ss$end
      ip -n "$ns" link set ss$end mtu 1420 up
    else
      conf "$key" "$(wg pubkey <<<"$peer")" "$own" "$other" "$endpoint" > "$out/$end.conf"
      ip netns exec "$ns" "$salvo" tunnel up "$out/$end.conf" --name ss$end > "$out/$end.log" 2>&1 &
      pids+=($!) tunnel_pids+=($!)
      wait_for "$ns" ss$end $own
    fi
  done
  # The first pings start the handshake (over TCP about 2 s after UDP went unanswered); a loaded host may need retries.
  for _ in $(seq 30); do
    if ip netns exec "$a" ping -n -q -c 1 -W 1 "$target" > /dev/null; then return 0; fi
  done
  echo "run.sh: no ping through the $path tunnel within 30 tries; the ends' logs: $out/a.log, $out/b.log" >&2
  exit 1
}

cpu_ticks() { # pids...: utime + stime of every thread (fields 14 and 15, counted after the command name's ')')
  local pid
  for pid in "$@"; do cat /proc/"$pid"/task/*/stat 2>/dev/null || true; done |
    awk '{ sub(/^.*\) /, ""); ticks += $12 + $13 } END { print ticks + 0 }'
}

measure() { # path round
  local file="$out/tcp_${1}_$2" start end third=$(( seconds / 3 ))
  ip netns exec "$a" iperf3 -c "$target" -p 5201 -t "$seconds" -i 1 -J > "$file.json" &
  local client=$!
  sleep "$third"
  start=$(cpu_ticks "${tunnel_pids[@]}")
  sleep "$third"
  end=$(cpu_ticks "${tunnel_pids[@]}")
  wait "$client"
  # USER_HZ is 100 on x86-64 and arm64 (include/asm-generic/param.h).
  echo "$third $start $end $(getconf CLK_TCK)" > "$file.cpu"
}

echo "start $(date -u +%FT%TZ), wireguard-go $(wireguard-go --version 2>&1 | awk 'NR == 1 { print $2 }'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for path in ${PATHS:-veth salvo wireguard-go salvo-tcp}; do
    echo "round $round, $path: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    up "$path"
    measure "$path" "$round"
    down
  done
done

switches() { # ends...: each tunnel thread's context switches (proc(5) status: voluntary are waits, the rest preemptions)
  local end task
  for end in "$@"; do
    for task in /proc/"${tunnel_pids[$end]}"/task/*; do
      awk -v end="$end" -v name="$(tr ' ' _ < "$task/comm" 2>/dev/null)" -v tid="${task##*/}" \
        '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 } END { print end, tid, name, v + 0, n + 0 }' \
        "$task/status" 2>/dev/null || true
    done
  done
}

syscall_events=raw_syscalls:sys_enter
for call in read write readv writev sendmsg sendmmsg recvmsg recvmmsg sendto recvfrom poll ppoll epoll_wait \
    epoll_pwait io_uring_enter futex sched_yield; do
  syscall_events+=,syscalls:sys_enter_$call
done
if command -v perf >/dev/null; then
  echo "syscalls: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  up salvo
  ip netns exec "$a" iperf3 -c "$target" -p 5201 -t "$seconds" -i 1 -J > "$out/syscalls.json" &
  client=$!
  sleep $(( seconds / 3 ))
  counters=()
  for end in 0 1; do
    perf stat -x , -e "$syscall_events" -p "${tunnel_pids[$end]}" -- sleep $(( seconds / 3 )) 2> "$out/syscalls_$end.txt" &
    counters+=($!)
  done
  switches 0 1 > "$out/switches_start.txt"
  wait "${counters[@]}"
  switches 0 1 > "$out/switches_end.txt"
  wait "$client"
  echo "$(( seconds / 3 ))" > "$out/syscalls.window"
  down
fi

# The same OpenSSL calls from C, where a C compiler is installed: the floor under the tunnel's own figure.
here=$(cd "$(dirname "$0")" && pwd)
evp_sequence=""
if command -v cc >/dev/null && cc -O2 -o "$out/evp-sequence" "$here/evp-sequence.c" -lcrypto 2> "$out/evp-sequence.log"; then
  evp_sequence=$out/evp-sequence
fi
for round in $(seq "${AEAD_ROUNDS:-$rounds}"); do
  if [[ -n $evp_sequence ]]; then
    "$evp_sequence" update > "$out/evp-update_$round.txt"
    "$evp_sequence" packet > "$out/evp-packet_$round.txt"
  fi
  for build in ${BEFORE_BENCHMARKS:+before} after; do
    dll=$benchmarks
    [[ $build == before ]] && dll=$BEFORE_BENCHMARKS
    dotnet "$dll" aead-cost 1420 50000 7 > "$out/aead_${build}_$round.txt"
  done
  openssl speed -seconds 3 -evp chacha20-poly1305 -bytes 1420 2>/dev/null > "$out/openssl_$round.txt"
  openssl speed -seconds 3 -aead -evp chacha20-poly1305 -bytes 1420 2>/dev/null > "$out/openssl-aead_$round.txt"
done

python3 - "$out" "$seconds" <<'PY'
import glob, json, os, re, statistics, sys
out, seconds = sys.argv[1], int(sys.argv[2])
third = seconds // 3
rows = {}
for path in sorted(glob.glob(os.path.join(out, "tcp_*.json"))):
    name, _ = os.path.basename(path)[len("tcp_"):-len(".json")].rsplit("_", 1)
    report = json.load(open(path))
    if "error" in report:
        print(f"{os.path.basename(path)}: {report['error']}", file=sys.stderr)
        continue
    # iperf3's receiver-side rate over the same middle window the CPU was read over (interval i covers [i, i+1) s).
    window = [i["sum"]["bits_per_second"] for i in report["intervals"] if third <= i["sum"]["start"] < 2 * third]
    gbps = statistics.mean(window) / 1e9 if window else report["end"]["sum_received"]["bits_per_second"] / 1e9
    span, start, end, hz = open(path[:-len(".json")] + ".cpu").read().split()
    cores = (int(end) - int(start)) / int(hz) / int(span)
    rows.setdefault(name, []).append((report["end"]["sum_received"]["bits_per_second"] / 1e9, cores / gbps if gbps else 0, cores))
veth = statistics.median(r[0] for r in rows.get("veth", [(0, 0, 0)]))
print("| path | one TCP stream, Gbit/s | of the veth | tunnel processes' cores per Gbit/s (both ends) | cores | each round: Gbit/s / cores per Gbit/s |")
print("|---|---:|---:|---:|---:|---|")
for name in ("veth", "salvo", "wireguard-go", "salvo-tcp"):
    if name not in rows:
        continue
    r = rows[name]
    rate = statistics.median(x[0] for x in r)
    ratio = f"{rate / veth:.2f}x" if veth else "-"
    per = "-" if name == "veth" else f"{statistics.median(x[1] for x in r):.2f}"
    cores = "-" if name == "veth" else f"{statistics.median(x[2] for x in r):.2f}"
    spread = ", ".join(f"{x[0]:.2f}/{x[1]:.2f}" for x in r)
    print(f"| {name} | {rate:.2f} | {ratio} | {per} | {cores} | {spread} |")
print()
aead = {}
for path in sorted(glob.glob(os.path.join(out, "aead_*.txt"))):
    build = os.path.basename(path).split("_")[1]
    m = re.search(r"seal ([0-9.]+) us/packet, open ([0-9.]+)", open(path).read())
    aead.setdefault(build, []).append((float(m.group(1)), float(m.group(2))))
def speed(pattern):
    figures = []
    for path in sorted(glob.glob(os.path.join(out, pattern))):
        line = [l for l in open(path) if l.startswith("ChaCha20-Poly1305")][-1]
        figures.append(1420 / (float(line.split()[-1].rstrip("k")) * 1e3) * 1e6)
    return figures
plain, tls = speed("openssl_*.txt"), speed("openssl-aead_*.txt")
if plain:
    s = statistics.median(plain)
    print("| 1,420 B packet | us per packet (CPU time) | of openssl speed's | each round |")
    print("|---|---:|---:|---|")
    print(f"| openssl speed -evp chacha20-poly1305 | {s:.3f} | 1.00x | {', '.join(f'{x:.3f}' for x in plain)} |")
    if tls:
        print(f"| openssl speed -aead -evp chacha20-poly1305 | {statistics.median(tls):.3f} | {statistics.median(tls) / s:.2f}x | {', '.join(f'{x:.3f}' for x in tls)} |")
    for mode, label in (("update", "C, EVP_CipherUpdate alone"), ("packet", "C, the tunnel's calls per seal")):
        v = [float(re.search(r"([0-9.]+) us/packet", open(p).read()).group(1)) for p in sorted(glob.glob(os.path.join(out, f"evp-{mode}_*.txt")))]
        if v:
            print(f"| {label} | {statistics.median(v):.3f} | {statistics.median(v) / s:.2f}x | {', '.join(f'{x:.3f}' for x in v)} |")
    for build in ("before", "after"):
        if build not in aead:
            continue
        for i, op in enumerate(("seal", "open")):
            v = [x[i] for x in aead[build]]
            label = f"tunnel {op}" + (f" ({build})" if "before" in aead else "")
            print(f"| {label} | {statistics.median(v):.3f} | {statistics.median(v) / s:.2f}x | {', '.join(f'{x:.3f}' for x in v)} |")
calls = {}
for end, name in ((0, "A (sends the data)"), (1, "B (receives it)")):
    path = os.path.join(out, f"syscalls_{end}.txt")
    if not os.path.exists(path):
        break
    for line in open(path):
        fields = line.strip().split(",")
        if len(fields) > 2 and fields[0].isdigit():
            calls.setdefault(fields[2].split(":")[-1].replace("sys_enter_", ""), {})[name] = int(fields[0])
if calls:
    report = json.load(open(os.path.join(out, "syscalls.json")))
    third = int(open(os.path.join(out, "syscalls.window")).read())
    sent = sum(i["sum"]["bytes"] for i in report["intervals"] if third <= i["sum"]["start"] < 2 * third)
    packets = sent / 1368
    print()
    print(f"System calls per data packet, Salvo <-> Salvo under perf ({packets:,.0f} packets of TCP payload A to B in {third} s):")
    print()
    print("| system call | A (sends the data) | B (receives it) |")
    print("|---|---:|---:|")
    for call, ends in sorted(calls.items(), key=lambda kv: (kv[0] != "sys_enter", -sum(kv[1].values()))):
        if sum(ends.values()) == 0:
            continue
        label = "all" if call == "sys_enter" else call
        print(f"| {label} | " + " | ".join(f"{ends.get(n, 0) / packets:.3f}" for n in ("A (sends the data)", "B (receives it)")) + " |")
    start = {(e, t): (n, int(v), int(i)) for e, t, n, v, i in (l.split() for l in open(os.path.join(out, "switches_start.txt")))}
    rows = {}
    for e, t, n, v, i in (l.split() for l in open(os.path.join(out, "switches_end.txt"))):
        if (e, t) in start:
            _, v0, i0 = start[(e, t)]
            row = rows.setdefault((e, n), [0, 0])
            row[0] += int(v) - v0
            row[1] += int(i) - i0
    print()
    print("Context switches per data packet, the same window, per thread (voluntary: the thread waited; involuntary: preempted):")
    print()
    print("| end | thread | voluntary | involuntary |")
    print("|---|---|---:|---:|")
    for (e, n), (v, i) in sorted(rows.items(), key=lambda kv: -sum(kv[1])):
        if v + i >= packets / 1000:
            print(f"| {'A' if e == '0' else 'B'} | {n} | {v / packets:.4f} | {i / packets:.4f} |")
PY
