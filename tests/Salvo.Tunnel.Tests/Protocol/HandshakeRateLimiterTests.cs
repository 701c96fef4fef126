using System.Net;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>The per-source bucket: 20 a second with a burst of 5, per IPv4 address and IPv6 /64, in bounded memory.</summary>
public sealed class HandshakeRateLimiterTests
{
    [Fact]
    public void Allow_PastTheBurst_RefusedUntilTokensRefill()
    {
        var clock = new ManualClock();
        var limiter = new HandshakeRateLimiter(clock);
        var source = At("198.18.0.9", 1000);

        var allowed = Enumerable.Range(0, 10).Count(_ => limiter.Allow(source));
        clock.Advance(TimeSpan.FromMilliseconds(50));

        Assert.Equal(HandshakeRateLimiter.Burst, allowed);
        Assert.True(limiter.Allow(source));
        Assert.False(limiter.Allow(source));
    }

    [Fact]
    public void Allow_SameIPv4OtherPort_SharesTheBucket_OtherAddressHasItsOwn()
    {
        var limiter = new HandshakeRateLimiter(new ManualClock());
        for (var i = 0; i < HandshakeRateLimiter.Burst; i++)
        {
            Assert.True(limiter.Allow(At("198.18.0.9", 1000 + i)));
        }

        Assert.False(limiter.Allow(At("198.18.0.9", 2000)));
        Assert.True(limiter.Allow(At("198.18.0.10", 1000)));
    }

    [Fact]
    public void Allow_IPv6_SameSlash64Shares_OtherSlash64HasItsOwn()
    {
        var limiter = new HandshakeRateLimiter(new ManualClock());
        for (var i = 0; i < HandshakeRateLimiter.Burst; i++)
        {
            Assert.True(limiter.Allow(At($"2001:db8:0:1::{i + 1:x}", 1000)));
        }

        Assert.False(limiter.Allow(At("2001:db8:0:1:ffff::1", 1000)));
        Assert.True(limiter.Allow(At("2001:db8:0:2::1", 1000)));
    }

    [Fact]
    public void Allow_ForgedSourcesPastTheTable_MemoryBounded_IdleEntriesCollected()
    {
        var clock = new ManualClock();
        var limiter = new HandshakeRateLimiter(clock);

        // More distinct sources than the table holds, all within 10 ms: none of their buckets has refilled.
        var refused = 0;
        for (var i = 0; i < HandshakeRateLimiter.MaxEntries + 1_000; i++)
        {
            var forged = new IPAddress([198, (byte)(18 + (i >> 16)), (byte)(i >> 8), (byte)i]);
            refused += limiter.Allow(DatagramAddress.FromIPEndPoint(new IPEndPoint(forged, 1))) ? 0 : 1;
        }

        Assert.Equal(HandshakeRateLimiter.MaxEntries, limiter.Count);
        Assert.True(refused > 0);
        clock.Advance(TimeSpan.FromSeconds(1));
        Assert.True(limiter.Allow(At("198.19.0.1", 1)));
        Assert.Equal(1, limiter.Count);
    }

    private static DatagramAddress At(string address, int port) => DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse(address), port));
}
