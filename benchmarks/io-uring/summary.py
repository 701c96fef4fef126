"""Medians of a benchmarks/io-uring/run.sh output, as the tables in docs/benchmarks.md."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import points as shared  # noqa: E402

points = shared.load(sys.argv[1] if len(sys.argv) > 1 else "io-uring.txt")


def median(key, field):
    return shared.median(points[key], field)


def spread(key, field):
    values = [float(p[field]) for p in points[key] if field in p]
    return (max(values) - min(values)) / statistics.median(values) * 100 if len(values) > 1 else 0.0


def cpu_ns(key, cpu):
    return shared.cpu_ns(points[key], cpu, "pps")


rows = [("socket", "s", "socket-auto", "rcpu"), ("salvo", "s", "salvo-linux", "rcpu"), ("salvo-async", "s", "salvo-async-linux", "rcpu"),
        ("salvo-uring", "s", "salvo-uring-uring", "rcpu"), ("salvo-uring-gso", "s", "salvo-uring-gso-uring", "rcpu"),
        ("server-w1 (linux)", "s", "server-w1-linux", None), ("server-w1 (uring)", "s", "server-w1-uring", None),
        ("C sendto -> recvfrom", "c", "sendto", "cpu_pct"), ("C sendmmsg -> recvmmsg", "c", "sendmmsg", "cpu_pct")]
print("| method | payload B | datagrams/s | spread | receiver CPU % | receiver CPU ns/datagram | loss | vs salvo | vs C recvmmsg |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for size in ("64", "1380"):
    salvo = median(("s", "salvo-linux", size), "pps")
    c = median(("c", "sendmmsg", size), "pps")
    for name, side, method, cpu in rows:
        key = (side, method, size)
        pps = median(key, "pps")
        cpu_pct = f"{median(key, cpu):.0f} %" if cpu else "n/a"
        ns = f"{cpu_ns(key, cpu):,.0f}" if cpu else "n/a"
        loss = f"{median(key, 'loss'):.1f} %" if side == "s" else "n/a"
        print(f"| {name} | {int(size):,} | {pps:,.0f} | {spread(key, 'pps'):.1f} % | {cpu_pct} | {ns} | {loss} | {pps / salvo:.2f}x | {pps / c:.2f}x |")
print()
print("| backend | in flight | requests/s | p50 us | p99 us |")
print("|---|---:|---:|---:|---:|")
for n in ("1", "16"):
    for backend in ("linux", "uring"):
        key = ("s", f"rr-{backend}", n)
        print(f"| {backend} | {n} | {median(key, 'rps'):,.0f} | {median(key, 'p50'):.1f} | {median(key, 'p99'):.1f} |")
