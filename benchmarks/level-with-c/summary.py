"""Medians and Salvo/C ratios of a benchmarks/level-with-c/run.sh output, as the table in docs/benchmarks.md."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import points as shared  # noqa: E402

points = shared.load(sys.argv[1] if len(sys.argv) > 1 else "level-with-c.txt")


def median(key, field):
    return shared.median(points[key], field)


def cpu_ns(key, cpu, rate):
    return shared.cpu_ns(points[key], cpu, rate)


print("| point | C | Salvo | Salvo / C |")
print("|---|---:|---:|---:|")
for size in ("1380", "64"):
    c, s = median(("c", "gso-U", size), "pps"), median(("s", "salvo-gso", size), "pps")
    print(f"| GSO -> GRO {int(size):,} B, datagrams/s | {c:,.0f} | {s:,.0f} | {s / c:.2f} |")
for size in ("1380", "64"):
    c, s = median(("c", "sendmmsg-U", size), "pps"), median(("s", "salvo", size), "pps")
    print(f"| batched, unconnected, {int(size):,} B, datagrams/s | {c:,.0f} | {s:,.0f} | {s / c:.2f} |")
    c, s = median(("c", "sendmmsg", size), "pps"), median(("s", "salvo-connect", size), "pps")
    print(f"| batched, connected, {int(size):,} B, datagrams/s | {c:,.0f} | {s:,.0f} | {s / c:.2f} |")
for size in ("64", "1380"):
    c, s = cpu_ns(("c", "sendmmsg-U", size), "cpu_pct", "pps"), cpu_ns(("s", "salvo", size), "rcpu", "pps")
    print(f"| receiver CPU per datagram, {int(size):,} B (batched, unconnected), ns | {c:,.0f} | {s:,.0f} | {s / c:.2f} |")
for n in ("1", "16"):
    c, s = ("c", "rr", n), ("s", "rr", n)
    print(f"| request/response 512 B, {n} in flight, requests/s | {median(c, 'rps'):,.0f} | {median(s, 'rps'):,.0f} | {median(s, 'rps') / median(c, 'rps'):.2f} |")
    for q in ("p50", "p99"):
        print(f"| ... {q} us | {median(c, q):.1f} | {median(s, q):.1f} | {median(s, q) / median(c, q):.2f} |")
    print(f"| ... Salvo requests per send call | - | {median(s, 'reqsend'):.1f} | |")
