namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// Bytes a steady-state loop allocates on this thread: <c>warmUp</c> runs first, then <c>measured</c> runs in
/// <c>slices</c> equal slices, the allocation counter read around each. An allocation per run shows in every slice,
/// an occasional one in some.
/// </summary>
internal static class AllocationSlices
{
    public static long[] Measure(Action run, int warmUp, int measured, int slices)
    {
        for (var i = 0; i < warmUp; i++)
        {
            run();
        }

        var bytes = new long[slices];
        for (var slice = 0; slice < slices; slice++)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            for (var i = 0; i < measured / slices; i++)
            {
                run();
            }

            bytes[slice] = GC.GetAllocatedBytesForCurrentThread() - before;
        }

        return bytes;
    }
}
