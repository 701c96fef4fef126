using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;

namespace Salvo.Tests.Xdp;

[SupportedOSPlatform("linux")]
public sealed class NextHopCacheTests
{
    private static readonly MacAddress s_mac = MacAddress.Parse("02:00:00:00:00:0b");

    [Fact]
    public void Get_SameAddressOtherPortOrMapped_AsksOnce()
    {
        var asked = 0;
        var cache = new NextHopCache(_ => { asked++; return s_mac; });
        var peer = DatagramAddress.Create(IPAddress.Parse("198.18.0.2"), 1000);

        Assert.Equal(s_mac, cache.Get(peer));
        Assert.Equal(s_mac, cache.Get(peer.WithPort(2000)));
        Assert.Equal(s_mac, cache.Get(peer.MapToIPv6()));

        Assert.Equal(1, asked);
    }

    [Fact]
    public void Learn_ThenGet_NeverAsksAndAllocatesNothing()
    {
        var cache = new NextHopCache(_ => throw new InvalidOperationException("asked"));
        var peer = DatagramAddress.Create(IPAddress.Parse("2001:db8::2"), 1000);
        cache.Learn(peer, s_mac);
        _ = cache.Get(peer);

        var before = GC.GetAllocatedBytesForCurrentThread();
        var mac = cache.Get(peer.WithPort(5));
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(s_mac, mac);
        Assert.Equal(0, allocated);
    }

    [Fact]
    public void Forget_ThenGet_AsksAgain()
    {
        var asked = 0;
        var cache = new NextHopCache(_ => { asked++; return s_mac; });
        var peer = DatagramAddress.Create(IPAddress.Parse("198.18.0.2"), 1000);
        cache.Get(peer);

        Assert.True(cache.Forget(peer));
        cache.Get(peer);

        Assert.Equal(2, asked);
    }
}
