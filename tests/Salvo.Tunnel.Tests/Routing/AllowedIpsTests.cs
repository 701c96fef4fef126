using System.Net;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Routing;

public sealed class AllowedIpsTests
{
    private sealed class Name(string value) : IRouteOwner
    {
        public byte[]? OwnedPrefixes { get; set; }

        public override string ToString() => value;
    }

    private static readonly Name s_a = new("a");
    private static readonly Name s_b = new("b");
    private static readonly Name s_c = new("c");

    private static Name? Lookup(AllowedIps<Name> routes, string address) => routes.Lookup(IPAddress.Parse(address).GetAddressBytes());

    [Fact]
    public void Lookup_LongestPrefixWins_IPv4()
    {
        var routes = new AllowedIps<Name>();
        routes.Add(IPPrefix.Parse("0.0.0.0/0"), s_a);
        routes.Add(IPPrefix.Parse("198.18.0.0/15"), s_b);
        routes.Add(IPPrefix.Parse("198.19.0.7/32"), s_c);
        Assert.Same(s_a, Lookup(routes, "8.8.8.8"));
        Assert.Same(s_b, Lookup(routes, "198.19.0.6"));
        Assert.Same(s_c, Lookup(routes, "198.19.0.7"));
        Assert.Same(s_b, Lookup(routes, "198.18.255.255"));
        Assert.Same(s_a, Lookup(routes, "198.20.0.0"));
    }

    [Fact]
    public void Lookup_LongestPrefixWins_IPv6_AndFamiliesAreSeparate()
    {
        var routes = new AllowedIps<Name>();
        routes.Add(IPPrefix.Parse("fd00::/8"), s_a);
        routes.Add(IPPrefix.Parse("fd00:1::/32"), s_b);
        routes.Add(IPPrefix.Parse("fd00:1::1/128"), s_c);
        Assert.Same(s_a, Lookup(routes, "fd42::1"));
        Assert.Same(s_b, Lookup(routes, "fd00:1::2"));
        Assert.Same(s_c, Lookup(routes, "fd00:1::1"));
        Assert.Null(Lookup(routes, "2001:db8::1"));
        Assert.Null(Lookup(routes, "198.19.0.1"));
    }

    [Fact]
    public void Add_SamePrefixToOtherPeer_MovesIt()
    {
        var routes = new AllowedIps<Name>();
        routes.Add(IPPrefix.Parse("198.19.0.0/24"), s_a);
        routes.Add(IPPrefix.Parse("198.19.0.0/24"), s_b);
        Assert.Same(s_b, Lookup(routes, "198.19.0.1"));
        Assert.Empty(routes.PrefixesOf(s_a));
    }

    [Fact]
    public void RemovePeer_LeavesOthersAndShorterPrefixes()
    {
        var routes = new AllowedIps<Name>();
        routes.Add(IPPrefix.Parse("198.18.0.0/15"), s_a);
        routes.Add(IPPrefix.Parse("198.19.0.0/24"), s_b);
        routes.RemovePeer(s_b);
        Assert.Same(s_a, Lookup(routes, "198.19.0.1"));
    }

    [Fact]
    public void PrefixesOf_ListsWhatWasAdded()
    {
        var routes = new AllowedIps<Name>();
        routes.Add(IPPrefix.Parse("198.19.0.1/32"), s_a);
        routes.Add(IPPrefix.Parse("fd00::/64"), s_a);
        Assert.Equal(["198.19.0.1/32", "fd00::/64"], routes.PrefixesOf(s_a).Select(p => p.ToString()));
    }

    [Theory]
    [InlineData("198.19.0.9/24", "198.19.0.0/24")]
    [InlineData("198.19.0.9", "198.19.0.9/32")]
    [InlineData("fd00::1/16", "fd00::/16")]
    public void Parse_ClearsHostBits(string text, string expected) => Assert.Equal(expected, IPPrefix.Parse(text).ToString());

    [Theory]
    [InlineData("198.19.0.0/33")]
    [InlineData("fd00::/129")]
    [InlineData("nonsense/8")]
    [InlineData("198.19.0.0/x")]
    public void Parse_Invalid_Throws(string text) => Assert.Throws<FormatException>(() => IPPrefix.Parse(text));
}
