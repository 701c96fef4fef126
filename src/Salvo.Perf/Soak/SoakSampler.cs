using System.Diagnostics;
using System.Globalization;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Soak;

/// <summary>One sample of the soak: the process's resources and the load's running counts.</summary>
/// <param name="Second">Seconds since the load started.</param>
/// <param name="WorkingSetBytes">Resident memory (Process.WorkingSet64).</param>
/// <param name="ManagedHeapBytes">GC.GetTotalMemory(false) before the sample's collection: the heap with its garbage, as the program sees it.</param>
/// <param name="HeapAfterCollectionBytes">The managed heap after a full blocking collection (collect, run finalizers, collect): only what is still reachable, which is what a leak grows.</param>
/// <param name="Gen0Collections">Generation 0 collections so far (the sample's own included).</param>
/// <param name="Gen1Collections">Generation 1 collections so far.</param>
/// <param name="Gen2Collections">Generation 2 collections so far.</param>
/// <param name="Handles">Open file descriptors (/proc/self/fd entries; the handle count elsewhere).</param>
/// <param name="Threads">Threads of the process.</param>
/// <param name="Traffic">The load's counts at this second.</param>
internal sealed record SoakSample(double Second, long WorkingSetBytes, long ManagedHeapBytes, long HeapAfterCollectionBytes, int Gen0Collections, int Gen1Collections,
    int Gen2Collections, int Handles, int Threads, SoakTraffic Traffic);

/// <summary>Reads the process's resources.</summary>
internal static class SoakSampler
{
    /// <summary>
    /// Takes one sample, with a full blocking collection in it: without one, the heap a sample reads depends on
    /// when the last collection ran (a 3 s run with one gen0 collection read 15.4 then 20.2 MiB and was called
    /// growing). The load goes on meanwhile: the echo's 4 MiB socket buffers hold what arrives during the pause.
    /// </summary>
    public static SoakSample Sample(double second, SoakTraffic traffic)
    {
        var heap = GC.GetTotalMemory(false);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        var live = GC.GetTotalMemory(false);
        using var process = Process.GetCurrentProcess();
        return new SoakSample(second, process.WorkingSet64, heap, live, GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2),
            CountHandles(process), CountThreads(process), traffic);
    }

    private static int CountHandles(Process process)
    {
        return ProcFiles.SelfDescriptorCount() ?? process.HandleCount;
    }

    private static int CountThreads(Process process)
    {
        if (ProcFiles.SelfStatus() is { } status)
        {
            foreach (var line in status.Split('\n'))
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
