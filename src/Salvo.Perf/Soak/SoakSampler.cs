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

/// <summary>Reads the process's resources.</summary>
internal static class SoakSampler
{
    /// <summary>Takes one sample.</summary>
    public static SoakSample Sample(double second, SoakTraffic traffic)
    {
        using var process = Process.GetCurrentProcess();
        return new SoakSample(second, process.WorkingSet64, GC.GetTotalMemory(false), GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2),
            CountHandles(process), CountThreads(process), traffic);
    }

    /// <summary>
    /// Takes one sample after a full blocking collection (collect, run finalizers, collect again, so objects
    /// freed by finalizers go too): the managed heap then holds only what is still reachable, which is
    /// what a leak grows.
    /// </summary>
    public static SoakSample SampleAfterFullCollection(double second, SoakTraffic traffic)
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        return Sample(second, traffic);
    }

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
