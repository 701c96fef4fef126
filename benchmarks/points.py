"""Reads the point lines the run.sh scripts under benchmarks/ write: "c|s NAME SIZE ROUND key=value ...".

Other lines (start, end, load) are printed as they are. Points are keyed by (side, name, size), one dict per round.
"""
import collections
import statistics


def load(path):
    points = collections.defaultdict(list)
    for line in open(path):
        fields = line.split()
        if not fields or fields[0] not in ("c", "s"):
            print(line.strip())
            continue
        points[tuple(fields[:3])].append(dict(f.split("=", 1) for f in fields[4:] if "=" in f))
    return points


def median(rounds, field):
    values = [float(p[field]) for p in rounds if field in p]
    return statistics.median(values) if values else float("nan")


def cpu_ns(rounds, cpu, rate):
    """Median CPU nanoseconds per datagram: CPU percent of one core over the rate."""
    values = [float(p[cpu]) / 100 * 1e9 / float(p[rate]) for p in rounds if float(p.get(rate, 0)) > 0 and float(p.get(cpu, 0)) > 0]
    return statistics.median(values) if values else float("nan")
