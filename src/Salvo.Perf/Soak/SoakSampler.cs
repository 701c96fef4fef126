using System.Diagnostics;
using System.Globalization;

namespace Salvo.Perf.Soak;

/// <summary>One second of the soak: the process's resources and the load's running counts.</summary>
/// <param name="Second">Seconds since the load started.</param>
/// <param name="WorkingSetBytes">Resident memory (Process.WorkingSet64).</param>
/// <param name="ManagedHeapBytes">GC.GetTotalMemory(false): the managed heap, without forcing a collection.</param>
/// <param name="Gen0Collections">Generation 0 collections so far.</param>
/// <param name="Gen1Collections">Generation 1 collections so far.</param>
/// <param name="Gen2Collections">Generation 2 collections so far.</param>
/// <param name="Handles">Open file descriptors (/proc/self/fd entries; the handle count elsewhere).</param>
/// <param name="Threads">Threads of the process.</param>
/// <param name="Traffic">The load's counts at this second.</param>
internal sealed record SoakSample(double Second, long WorkingSetBytes, long ManagedHeapBytes, int Gen0Collections, int Gen1Collections, int Gen2Collections, int Handles, int Threads, SoakTraffic Traffic);

/// <summary>Whether one resource stayed flat: last third of the run against the first third.</summary>
/// <param name="Resource">What was compared.</param>
/// <param name="FirstThirdMean">Mean over the first third of the samples.</param>
/// <param name="LastThirdMean">Mean over the last third.</param>
/// <param name="Allowed">The largest rise still called flat.</param>
/// <param name="Flat">Whether the rise stayed within <paramref name="Allowed"/>.</param>
internal sealed record SoakTrend(string Resource, double FirstThirdMean, double LastThirdMean, double Allowed, bool Flat);

/// <summary>Reads the process's resources and judges whether they stayed flat.</summary>
internal static class SoakSampler
{
    /// <summary>Relative rise of memory allowed between first and last third: 10 %.</summary>
    public const double MemoryTolerance = 0.10;

    /// <summary>Absolute rise of memory always allowed (allocator and JIT noise on a small heap): 4 MiB.</summary>
    public const long MemorySlackBytes = 4 << 20;

    /// <summary>Rise in handles or threads allowed (the thread pool may add a worker or two).</summary>
    public const double CountSlack = 4;

    /// <summary>Takes one sample.</summary>
    public static SoakSample Sample(double second, SoakTraffic traffic)
    {
        using var process = Process.GetCurrentProcess();
        return new SoakSample(second, process.WorkingSet64, GC.GetTotalMemory(false), GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2),
            CountHandles(process), CountThreads(process), traffic);
    }

    /// <summary>
    /// Compares the last third of <paramref name="all"/> with the first third, per resource, after
    /// leaving out the first tenth as warm-up (JIT, buffer pools and the thread pool grow to size there).
    /// </summary>
    public static IReadOnlyList<SoakTrend> Judge(IReadOnlyList<SoakSample> all)
    {
        var samples = all.Skip(all.Count / 10).ToList();
        var third = Math.Max(1, samples.Count / 3);
        var first = samples.Take(third).ToList();
        var last = samples.Skip(samples.Count - third).ToList();
        return
        [
            Memory("working set", first.Average(s => (double)s.WorkingSetBytes), last.Average(s => (double)s.WorkingSetBytes)),
            Memory("managed heap", first.Average(s => (double)s.ManagedHeapBytes), last.Average(s => (double)s.ManagedHeapBytes)),
            Count("handles", first.Average(s => (double)s.Handles), last.Average(s => (double)s.Handles)),
            Count("threads", first.Average(s => (double)s.Threads), last.Average(s => (double)s.Threads)),
        ];
    }

    private static SoakTrend Memory(string resource, double first, double last)
    {
        var allowed = Math.Max(first * MemoryTolerance, MemorySlackBytes);
        return new SoakTrend(resource, first, last, allowed, last - first <= allowed);
    }

    private static SoakTrend Count(string resource, double first, double last) => new(resource, first, last, CountSlack, last - first <= CountSlack);

    private static int CountHandles(Process process)
    {
        try
        {
            return Directory.Exists("/proc/self/fd") ? Directory.EnumerateFileSystemEntries("/proc/self/fd").Count() : process.HandleCount;
        }
        catch (IOException)
        {
            return process.HandleCount;
        }
    }

    private static int CountThreads(Process process)
    {
        const string Status = "/proc/self/status";
        if (File.Exists(Status))
        {
            foreach (var line in File.ReadLines(Status))
            {
                if (line.StartsWith("Threads:", StringComparison.Ordinal)
                    && int.TryParse(line.AsSpan(8).Trim(), NumberStyles.Integer, CultureInfo.InvariantCulture, out var threads))
                {
                    return threads;
                }
            }
        }

        return process.Threads.Count;
    }
}
