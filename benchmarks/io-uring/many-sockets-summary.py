"""Medians of a benchmarks/io-uring/many-sockets.sh output, and io_uring against the batched backend per round."""
import statistics
import sys
from collections import defaultdict

rows = defaultdict(lambda: defaultdict(dict))  # case -> round -> backend -> fields
for line in open(sys.argv[1] if len(sys.argv) > 1 else "many-sockets.txt"):
    if not line.startswith("round="):
        continue
    words = line.split()
    fields = dict(w.split("=", 1) for w in words if "=" in w)
    backend = words[words.index("backend") + 1]
    load = "rate=" + fields["rate"] if "rate" in fields else "in-flight=" + fields["in-flight"]
    rows["sockets=%s %s" % (fields["sockets"], load)][fields["round"]][backend] = fields

print("| case | backend | requests/s | server CPU ns/request | p50 us | p99 us | unanswered | CPU ns/request, batched / io_uring (each round) | requests/s, io_uring / batched (each round) |")
print("|---|---|---:|---:|---:|---:|---:|---|---|")
for case, rounds in rows.items():
    complete = [r for r in rounds.values() if "LinuxBatched" in r and "IoUring" in r]
    cpu = [float(r["LinuxBatched"]["cpu_ns_per_request"]) / float(r["IoUring"]["cpu_ns_per_request"]) for r in complete]
    rps = [float(r["IoUring"]["rps"]) / float(r["LinuxBatched"]["rps"]) for r in complete]
    for backend in ("LinuxBatched", "IoUring"):
        points = [r[backend] for r in complete]
        med = lambda field: statistics.median(float(p[field]) for p in points)
        ratios = ""
        if backend == "IoUring":
            ratios = "| %.2fx (%s) | %.2fx (%s) " % (statistics.median(cpu), ", ".join("%.2f" % c for c in cpu),
                                                   statistics.median(rps), ", ".join("%.2f" % c for c in rps))
        else:
            ratios = "| | "
        print("| %s | %s | %s | %s | %.1f | %.1f | %d %s|" % (case, backend, format(round(med("rps")), ","), format(round(med("cpu_ns_per_request")), ","),
                                                          med("p50_us"), med("p99_us"), sum(int(p["lost"]) for p in points), ratios))
