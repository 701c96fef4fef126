using System.Diagnostics;

namespace Salvo.Perf.Connections;

/// <summary>Process and managed-heap memory after a full, compacting collection.</summary>
/// <param name="ManagedBytes">Live managed bytes (GC.GetTotalMemory after collection).</param>
/// <param name="HeapBytes">The GC heap size, live data and free space together.</param>
/// <param name="FragmentedBytes">Free space between live objects the GC could not give back.</param>
/// <param name="PinnedObjects">Objects pinned at the last GC.</param>
/// <param name="WorkingSetBytes">The process's resident memory.</param>
/// <param name="FragmentedBytesByGeneration">Free space per heap: gen0, gen1, gen2, large object heap, pinned object heap.</param>
internal sealed record MemorySnapshot(long ManagedBytes, long HeapBytes, long FragmentedBytes, long PinnedObjects, long WorkingSetBytes, long[]? FragmentedBytesByGeneration = null)
{
    /// <summary>Fragmentation as a percentage of the heap.</summary>
    public double FragmentationPercent => HeapBytes == 0 ? 0 : 100.0 * FragmentedBytes / HeapBytes;

    public static MemorySnapshot Take()
    {
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        var managed = GC.GetTotalMemory(forceFullCollection: false);
        var info = GC.GetGCMemoryInfo(GCKind.FullBlocking);
        using var process = Process.GetCurrentProcess();
        var byGeneration = new long[info.GenerationInfo.Length];
        for (var i = 0; i < byGeneration.Length; i++)
        {
            byGeneration[i] = info.GenerationInfo[i].FragmentationAfterBytes;
        }

        return new MemorySnapshot(managed, info.HeapSizeBytes, info.FragmentedBytes, info.PinnedObjectsCount, process.WorkingSet64, byGeneration);
    }
}
