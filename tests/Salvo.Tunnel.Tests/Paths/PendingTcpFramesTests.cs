using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel.Tests.Paths;

public sealed class PendingTcpFramesTests
{
    [Fact]
    public void TryAdd_LongerThanTheFramesWereSizedFor_GrowsOnceEmpty()
    {
        var frames = new PendingTcpFrames(4, 1_452);
        Assert.True(frames.TryAdd(100, default, out _));

        // Not empty: the caller flushes first, then the buffer grows to four messages of the new length.
        Assert.False(frames.TryAdd(9_032, default, out _));
        frames.Clear();
        Assert.True(frames.TryAdd(9_032, default, out var message));
        Assert.Equal(9_032, message.Length);
        Assert.True(frames.TryAdd(9_032, default, out _));
    }
}
