using System.Net;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Routing;

public sealed class AllowedIpsConcurrencyTests
{
    private sealed class Owner : IRouteOwner
    {
        public byte[]? OwnedPrefixes { get; set; }
    }

    [Fact]
    public async Task Replace_WhileAnotherThreadLooksUp_KeptPrefixNeverLosesItsOwner()
    {
        var routes = new AllowedIps<Owner>();
        var owner = new Owner();
        var other = new Owner();
        IPPrefix[] first = [IPPrefix.Parse("10.0.0.0/8"), IPPrefix.Parse("192.168.0.0/24"), IPPrefix.Parse("10.1.2.0/24")];
        IPPrefix[] second = [IPPrefix.Parse("10.0.0.0/8"), IPPrefix.Parse("172.16.0.0/12")];
        routes.Replace(owner, first);
        routes.Add(IPPrefix.Parse("0.0.0.0/0"), other);

        var address = IPAddress.Parse("10.1.2.3").GetAddressBytes();
        using var stop = new CancellationTokenSource();
        long lookups = 0, misses = 0;
        using var readerStarted = new ManualResetEventSlim();
        var reader = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                // 10.0.0.0/8 stays the owner's in both sets; 10.1.2.0/24 comes and goes but is the owner's too.
                if (!ReferenceEquals(routes.Lookup(address), owner))
                {
                    Interlocked.Increment(ref misses);
                }

                if (++lookups == 1)
                {
                    readerStarted.Set();
                }
            }
        });

        // On a loaded machine the reader's thread may start only after 20,000 replacements: wait for it, or nothing overlaps.
        Assert.True(readerStarted.Wait(TimeSpan.FromSeconds(30)), "the reading thread did not start");
        for (var round = 0; round < 20_000; round++)
        {
            routes.Replace(owner, round % 2 == 0 ? second : first);
        }

        stop.Cancel();
        await reader.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(lookups > 0);
        Assert.Equal(0, misses);
        Assert.Equal(first.Select(p => p.ToString()).Order(StringComparer.Ordinal), routes.PrefixesOf(owner).Select(p => p.ToString()).Order(StringComparer.Ordinal));
    }
}
