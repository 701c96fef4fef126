#!/usr/bin/env python3
"""Medians per point of benchmarks/rr-one-in-flight/run.sh's output, each round's figure against C's in that round.

Usage: python3 benchmarks/rr-one-in-flight/summary.py OUT
"""
import re
import statistics
import sys

ticks_per_second = 100
rows = {}  # name -> list of (round, rps, p50, p99, cpu us per request)
for line in open(sys.argv[1]):
    start = re.match(r"start .* clk_tck (\d+)", line)
    if start:
        ticks_per_second = int(start.group(1))
        continue
    fields = line.split()
    if len(fields) < 3 or fields[0] in ("start", "end") or "error=" in line:
        continue
    values = dict(f.split("=", 1) for f in fields[2:] if "=" in f)
    if not all(values.get(k) for k in ("rps", "p50", "p99", "ticks")):
        print("skipped (incomplete): " + line.strip(), file=sys.stderr)
        continue
    rps = float(values["rps"])
    # The CPU window is 2 s inside the measured one (run.sh), so the requests it holds are rps * 2.
    cpu = float(values["ticks"]) / ticks_per_second / (rps * 2.0) * 1e6 if rps else float("nan")
    rows.setdefault(fields[0], []).append((int(fields[1]), rps, float(values["p50"]), float(values["p99"]), cpu))

c_by_round = {r[0]: r for r in rows.get("c", [])}
print("| point | rounds | requests/s | p50 us | p99 us | CPU us/request | requests/s vs C, each round | p50 vs C | p99 vs C |")
print("|---|---:|---:|---:|---:|---:|---|---|---|")
for name, points in rows.items():
    med = [statistics.median(p[i] for p in points) for i in range(1, 5)]
    ratios = [(p[1] / c_by_round[p[0]][1], p[2] / c_by_round[p[0]][2], p[3] / c_by_round[p[0]][3]) for p in points if p[0] in c_by_round]
    each = lambda i: " ".join("%.2f" % r[i] for r in ratios)
    print("| %s | %d | %s | %.1f | %.1f | %.1f | %s | %s | %s |" % (
        name, len(points), format(round(med[0]), ","), med[1], med[2], med[3], each(0), each(1), each(2)))
