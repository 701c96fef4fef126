using System.Runtime;
using Salvo.Tunnel.Control;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>
/// The collector held off for one large set at a time, and always given back. Alone, with the control socket's memory
/// tests: a large set elsewhere in the process would hold the one pause there is.
/// </summary>
[Collection(ControlSocketMemoryCollection.Name)]
public sealed class CollectorPauseTests
{
    [Fact]
    public void TryStart_OneHolderAtATime_EndGivesTheCollectorBack()
    {
        Assert.True(CollectorPause.TryStart());
        try
        {
            Assert.Equal(GCLatencyMode.NoGCRegion, GCSettings.LatencyMode);
            Assert.False(CollectorPause.TryStart());
        }
        finally
        {
            CollectorPause.End();
        }

        Assert.NotEqual(GCLatencyMode.NoGCRegion, GCSettings.LatencyMode);
        Assert.True(CollectorPause.TryStart());
        CollectorPause.End();
    }

    [Fact]
    public void End_AfterTheBudgetRanOut_LeavesNoRegionAndAllowsTheNext()
    {
        Assert.True(CollectorPause.TryStart());

        // A collection the process asks for ends the region, as running past the budget does.
        GC.Collect();
        CollectorPause.End();

        Assert.NotEqual(GCLatencyMode.NoGCRegion, GCSettings.LatencyMode);
        Assert.True(CollectorPause.TryStart());
        CollectorPause.End();
    }
}
