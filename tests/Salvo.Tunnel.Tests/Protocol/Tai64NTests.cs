using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel.Tests.Protocol;

public sealed class Tai64NTests
{
    [Fact]
    public void Write_UnixEpoch_IsTaiLabelPlusTenSeconds()
    {
        var bytes = new byte[12];
        Tai64N.Write(DateTimeOffset.UnixEpoch, bytes);
        Assert.Equal("400000000000000a00000000", Convert.ToHexStringLower(bytes));
    }

    [Fact]
    public void Write_NanosecondsWhitenedTo2Pow24()
    {
        var bytes = new byte[12];
        Tai64N.Write(DateTimeOffset.UnixEpoch.AddSeconds(1).AddTicks(3_000_000), bytes);
        Assert.Equal("400000000000000b", Convert.ToHexStringLower(bytes[..8]));
        // 300,000,000 ns rounded down to a multiple of 16,777,216 is 285,212,672 = 0x11000000.
        Assert.Equal("11000000", Convert.ToHexStringLower(bytes[8..]));
    }

    [Fact]
    public void IsAfter_OrdersByTime()
    {
        var earlier = new byte[12];
        var later = new byte[12];
        var now = new DateTimeOffset(2026, 5, 1, 0, 0, 0, TimeSpan.Zero);
        Tai64N.Write(now, earlier);
        Tai64N.Write(now.AddMilliseconds(20), later);
        Assert.True(Tai64N.IsAfter(later, earlier));
        Assert.False(Tai64N.IsAfter(earlier, later));
        Assert.False(Tai64N.IsAfter(earlier, earlier));
    }
}
