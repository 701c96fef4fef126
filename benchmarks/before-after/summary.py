#!/usr/bin/env python3
"""Reads run.sh's OUT_DIR and prints one markdown table: each measure's median per side over the rounds, the rounds
in brackets, and after / before."""
import glob
import json
import os
import re
import statistics
import sys

out = sys.argv[1]


def load(pattern):
    rows = {}
    for path in sorted(glob.glob(os.path.join(out, pattern))):
        side, rnd = re.search(r"-(before|after)-(\d+)\.\w+$", path).groups()
        rows.setdefault(side, []).append(path)
    return rows


measures = {}


def document(path):
    """The JSON document at path, or None for a run that is still writing it or was cut (an empty or partial file)."""
    try:
        return json.load(open(path))
    except json.JSONDecodeError:
        print(f"left out: {os.path.basename(path)} (not a whole document)", file=sys.stderr)
        return None


def add(name, side, value):
    if value is not None:
        measures.setdefault(name, {"before": [], "after": []})[side].append(value)


for side, paths in load("loopback-*.json").items():
    for path in paths:
        for result in (document(path) or {}).get("results", []):
            if result["method"] != "socket":
                add(f"`{result['method']}` vs `socket`, {result['payloadBytes']:,} B", side, result["ratioToSocket"])
for side, paths in load("rr-*.json").items():
    for path in paths:
        if (rr := document(path)) is not None:
            add("server echo (`rr --responder server -P 16`), requests/s", side, rr["result"]["requestsPerSecond"])
for side, paths in load("tunnel-*.json").items():
    for path in paths:
        for p in (document(path) or {}).get("paths", []):
            if p["path"] == "salvo <-> salvo":
                add("tunnel Salvo <-> Salvo, iperf3 TCP, Mbit/s", side, p["tcpMbps"])
for side, paths in load("peers-*.txt").items():
    for path in paths:
        parts = open(path).read().split()
        if len(parts) == 3:
            add("10,000 peers: launch to all routes, s", side, float(parts[1]))
            add("10,000 peers: RSS when up, MB", side, int(parts[2]) / 1024)


def fmt(v):
    return f"{v:,.0f}" if v >= 1000 else f"{v:.3g}" if v < 10 else f"{v:,.1f}"


print("| measure | before | after | after / before |")
print("|---|---:|---:|---:|")
for name, sides in measures.items():
    b, a = sides["before"], sides["after"]
    if not b or not a:
        continue
    mb, ma = statistics.median(b), statistics.median(a)
    print(f"| {name} | {fmt(mb)} [{', '.join(fmt(x) for x in b)}] | {fmt(ma)} [{', '.join(fmt(x) for x in a)}] | {ma / mb:.2f} |")
