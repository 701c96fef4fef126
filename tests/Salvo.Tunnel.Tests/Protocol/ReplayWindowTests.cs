using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel.Tests.Protocol;

public sealed class ReplayWindowTests
{
    [Fact]
    public void InOrder_AcceptedOnce()
    {
        var window = new ReplayWindow();
        for (ulong i = 0; i < 300; i++)
        {
            Assert.True(window.TryMark(i));
            Assert.False(window.TryMark(i));
        }
    }

    [Fact]
    public void Edge_OldestInsideWindowAccepted_OneFurtherRefused()
    {
        var window = new ReplayWindow();
        const ulong newest = 20_000;
        Assert.True(window.TryMark(newest));
        Assert.True(window.TryMark(newest - ReplayWindow.WindowSize));
        Assert.False(window.TryMark(newest - ReplayWindow.WindowSize - 1));
        Assert.False(window.TryMark(newest - ReplayWindow.WindowSize));
    }

    [Fact]
    public void OutOfOrder_WithinWindow_EachAcceptedOnce()
    {
        var window = new ReplayWindow();
        ulong[] order = [5, 1, 9, 0, 7, 3, 8000, 100, 6, 8001, 4];
        foreach (var counter in order)
        {
            Assert.True(window.TryMark(counter));
        }

        foreach (var counter in order)
        {
            Assert.False(window.TryMark(counter));
        }

        Assert.True(window.TryMark(2));
    }

    [Fact]
    public void WrapAround_RingReused_OldBitsDoNotLeakIntoNewCounters()
    {
        // The ring holds 128 words; counter c and c + 8192 share a bit. Jumping ahead must clear it.
        var window = new ReplayWindow();
        Assert.True(window.TryMark(64));
        Assert.True(window.TryMark(64 + 8192));
        Assert.False(window.TryMark(64));
        for (ulong c = 8192; c < 8192 + 128; c++)
        {
            if (c != 64 + 8192)
            {
                Assert.True(window.TryMark(c), $"counter {c}");
            }
        }
    }

    [Fact]
    public void WrapAround_ManyTimesAroundTheRing_InOrderAndLateArrivals()
    {
        var window = new ReplayWindow();
        for (ulong c = 0; c < 100_000; c += 3)
        {
            Assert.True(window.TryMark(c));
            if (c >= 300)
            {
                Assert.True(window.TryMark(c - 299));
                Assert.False(window.TryMark(c - 300));
            }
        }
    }

    [Fact]
    public void HugeJump_ClearsWholeRing()
    {
        var window = new ReplayWindow();
        for (ulong c = 0; c < 8000; c++)
        {
            window.TryMark(c);
        }

        Assert.True(window.TryMark(1_000_000));
        Assert.True(window.TryMark(1_000_000 - 8000));
        Assert.False(window.TryMark(7999));
    }

    [Fact]
    public void Limit_RejectAfterMessagesAndBeyond_Refused()
    {
        var window = new ReplayWindow();
        Assert.True(window.TryMark(WireGuardProtocol.RejectAfterMessages - 1));
        Assert.False(window.TryMark(WireGuardProtocol.RejectAfterMessages));
        Assert.False(window.TryMark(ulong.MaxValue));
    }

    [Fact]
    public void MayAccept_DoesNotMark()
    {
        var window = new ReplayWindow();
        Assert.True(window.MayAccept(10));
        Assert.True(window.MayAccept(10));
        Assert.True(window.TryMark(10));
        Assert.False(window.MayAccept(10));
    }
}
