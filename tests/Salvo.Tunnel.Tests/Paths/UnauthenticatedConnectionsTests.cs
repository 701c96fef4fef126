using System.Net;
using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel.Tests.Paths;

/// <summary>The budget of TCP fallback connections that have not authenticated: per source, in total, and in time.</summary>
public sealed class UnauthenticatedConnectionsTests
{
    private static readonly TimeSpan s_deadline = TimeSpan.FromSeconds(8);

    private static DatagramAddress From(string address, int port = 40000) => DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse(address), port));

    private sealed class Connection(string name)
    {
        public override string ToString() => name;
    }

    [Fact]
    public void OneSource_PastItsBudget_IsRefused_OtherSourcesStillAdmitted()
    {
        var budget = new UnauthenticatedConnections<Connection>(perSource: 3, total: 100, s_deadline);
        for (var i = 0; i < 3; i++)
        {
            Assert.True(budget.TryAdmit(new Connection($"a{i}"), From("127.0.1.1", 40000 + i), now: 0, out var evicted));
            Assert.Null(evicted);
        }

        Assert.False(budget.TryAdmit(new Connection("a3"), From("127.0.1.1", 40003), now: 0, out _));
        // The same address reached over the dual-stack listener (IPv4-mapped) is the same source.
        Assert.False(budget.TryAdmit(new Connection("a4"), From("::ffff:127.0.1.1"), now: 0, out _));
        Assert.True(budget.TryAdmit(new Connection("b"), From("127.0.1.2"), now: 0, out _));
        Assert.Equal(4, budget.Count);
    }

    [Fact]
    public void IPv6_OneSlash64IsOneSource_AnotherSlash64IsNot()
    {
        var budget = new UnauthenticatedConnections<Connection>(perSource: 2, total: 100, s_deadline);
        Assert.True(budget.TryAdmit(new Connection("1"), From("2001:db8:0:1::1"), now: 0, out _));
        Assert.True(budget.TryAdmit(new Connection("2"), From("2001:db8:0:1::ffff"), now: 0, out _));
        Assert.False(budget.TryAdmit(new Connection("3"), From("2001:db8:0:1:abcd::9"), now: 0, out _));
        Assert.True(budget.TryAdmit(new Connection("4"), From("2001:db8:0:2::1"), now: 0, out _));
    }

    [Fact]
    public void Full_TheOldestGivesWayToTheNewest_AndItsSourceGetsItsPlaceBack()
    {
        var budget = new UnauthenticatedConnections<Connection>(perSource: 1, total: 3, s_deadline);
        var oldest = new Connection("oldest");
        Assert.True(budget.TryAdmit(oldest, From("127.0.1.1"), now: 0, out _));
        Assert.True(budget.TryAdmit(new Connection("2"), From("127.0.1.2"), now: 1, out _));
        Assert.True(budget.TryAdmit(new Connection("3"), From("127.0.1.3"), now: 2, out _));

        var peer = new Connection("peer");
        Assert.True(budget.TryAdmit(peer, From("127.0.0.1"), now: 3, out var evicted));
        Assert.Same(oldest, evicted);
        Assert.Equal(3, budget.Count);
        Assert.False(budget.Remove(oldest));

        // 127.0.1.1's one place was freed with it; taking it evicts the next oldest, never the peer's.
        Assert.True(budget.TryAdmit(new Connection("again"), From("127.0.1.1"), now: 4, out evicted));
        Assert.Equal("2", evicted!.ToString());
        Assert.True(budget.Remove(peer));
    }

    [Fact]
    public void Full_TheSourceHoldingTheMostGivesWay_NotThePeersOlderConnection()
    {
        var budget = new UnauthenticatedConnections<Connection>(perSource: 100, total: 4, s_deadline);
        var peer = new Connection("peer");
        Assert.True(budget.TryAdmit(peer, From("127.0.0.1"), now: 0, out _));
        var flood = Enumerable.Range(0, 3).Select(i => new Connection($"flood{i}")).ToArray();
        foreach (var connection in flood)
        {
            Assert.True(budget.TryAdmit(connection, From("127.0.1.1"), now: 1, out _));
        }

        for (var i = 0; i < 10; i++)
        {
            Assert.True(budget.TryAdmit(new Connection($"more{i}"), From("127.0.1.1"), now: 2, out var evicted));
            Assert.NotSame(peer, evicted);
        }

        Assert.True(budget.Remove(peer));
    }

    [Fact]
    public void Deadline_ExpiresAtItsEnd_NotBefore_AndAnAuthenticatedConnectionNever()
    {
        var budget = new UnauthenticatedConnections<Connection>(perSource: 8, total: 100, s_deadline);
        var junk = new Connection("junk");
        var later = new Connection("later");
        var peer = new Connection("peer");
        budget.TryAdmit(junk, From("127.0.1.1"), now: 1_000, out _);
        budget.TryAdmit(peer, From("127.0.0.1"), now: 1_000, out _);
        budget.TryAdmit(later, From("127.0.1.1"), now: 2_000, out _);
        Assert.True(budget.Remove(peer));

        var expired = new List<Connection>();
        budget.TakeExpired(8_999, expired);
        Assert.Empty(expired);
        budget.TakeExpired(9_000, expired);
        Assert.Equal([junk], expired);
        budget.TakeExpired(60_000, expired);
        Assert.Equal([junk, later], expired);
        Assert.Equal(0, budget.Count);
    }
}
