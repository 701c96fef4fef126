using System.Runtime;

namespace Salvo.Tunnel.Control;

/// <summary>
/// Holds the collector off while one very large <c>set=1</c> is read and applied. Every object such a set makes lives
/// until the set is applied, so each collection during it only copies them on (gen0 to gen1 to gen2) and marks them
/// again; with none, the compacting collection after the set (see <see cref="UapiConnection"/>) moves each once.
/// </summary>
/// <remarks>
/// One pause at a time for the process (the runtime allows one no-GC region); a set that allocates past the budget
/// ends it by itself (the runtime collects then, as it would have). The budget covers a million-peer set: about 200
/// bytes a peer parsed (UapiSetParserAllocationTests) and 400 a peer applied.
/// </remarks>
internal static class CollectorPause
{
    /// <summary>What the pause lets the process allocate: 1 GiB.</summary>
    public const long BudgetBytes = 1L << 30;

    private static int s_held;

    /// <summary>Starts the pause if no other set holds it and the runtime grants it; true when this caller holds it.</summary>
    public static bool TryStart()
    {
        if (Interlocked.CompareExchange(ref s_held, 1, 0) != 0)
        {
            return false;
        }

        try
        {
            if (GC.TryStartNoGCRegion(BudgetBytes))
            {
                return true;
            }
        }
        catch (ArgumentOutOfRangeException)
        {
            // A budget past what this runtime's heap can promise: the set runs with the collector as usual.
        }
        catch (InvalidOperationException)
        {
            // A region begun elsewhere in the process.
        }

        Volatile.Write(ref s_held, 0);
        return false;
    }

    /// <summary>Ends the pause this caller holds, if the runtime has not ended it already.</summary>
    public static void End()
    {
        try
        {
            if (GCSettings.LatencyMode == GCLatencyMode.NoGCRegion)
            {
                GC.EndNoGCRegion();
            }
        }
        catch (InvalidOperationException)
        {
            // The budget ran out and the runtime collected: the region is over either way.
        }
        finally
        {
            Volatile.Write(ref s_held, 0);
        }
    }
}
