using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;
using Salvo.Tests.Lab;

namespace Salvo.Tests.Xdp;

/// <summary>The next hop's Ethernet address from host A's kernel tables, on-link and through a gateway.</summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class NeighbourLookupLabTests
{
    [RequiresFact(Requirement.Netns)]
    public void Resolve_BeforeAndAfterAPing_RefusesClearlyThenFindsThePeersMac()
    {
        using var lab = new NetworkLab();
        var peer = IPAddress.Parse(NetworkLab.AddressB);
        var macOfB = NetworkLab.InHost(lab.HostB, () => NeighbourLookup.InterfaceOf(peer).Address);

        var error = Assert.Throws<InvalidOperationException>(() => NetworkLab.InHost(lab.HostA, () => NeighbourLookup.Resolve(peer)));
        NetworkLab.Exec(lab.HostA, "ping", $"-c 1 -W 5 {NetworkLab.AddressB}");
        var path = NetworkLab.InHost(lab.HostA, () => NeighbourLookup.Resolve(peer));

        Assert.Contains($"No neighbour entry for {NetworkLab.AddressB} on {lab.InterfaceA}", error.InnerException!.Message, StringComparison.Ordinal);
        Assert.Contains("ip neigh", error.InnerException.Message, StringComparison.Ordinal);
        Assert.Equal(macOfB, path.NextHopMac);
        Assert.Equal(peer, path.NextHop);
        Assert.Equal(lab.InterfaceA, path.Interface.Name);
        Assert.Equal(IPAddress.Parse(NetworkLab.AddressA), path.PreferredSource);
        Assert.NotEqual(default, path.Interface.Address);
    }

    [RequiresFact(Requirement.Netns)]
    public void Resolve_IPv6Peer_FindsItsMacAfterAPing()
    {
        using var lab = new NetworkLab();
        NetworkLab.Exec(lab.HostA, "ip", $"-6 addr add 2001:db8::1/64 dev {lab.InterfaceA} nodad");
        NetworkLab.Exec(lab.HostB, "ip", $"-6 addr add 2001:db8::2/64 dev {lab.InterfaceB} nodad");
        var peer = IPAddress.Parse("2001:db8::2");
        var macOfB = NetworkLab.InHost(lab.HostB, () => NeighbourLookup.InterfaceOf(peer).Address);

        var error = Assert.Throws<InvalidOperationException>(() => NetworkLab.InHost(lab.HostA, () => NeighbourLookup.Resolve(peer)));
        NetworkLab.Exec(lab.HostA, "ping", "-6 -c 1 -W 5 2001:db8::2");
        var path = NetworkLab.InHost(lab.HostA, () => NeighbourLookup.Resolve(peer));

        Assert.Contains($"No neighbour entry for 2001:db8::2 on {lab.InterfaceA}", error.InnerException!.Message, StringComparison.Ordinal);
        Assert.Equal(macOfB, path.NextHopMac);
        Assert.Equal(lab.InterfaceA, path.Interface.Name);
    }

    [RequiresFact(Requirement.Netns)]
    public void Resolve_OffLinkDestination_TakesTheGatewaysMac()
    {
        using var lab = new NetworkLab();
        NetworkLab.Exec(lab.HostA, "ip", $"route add 198.19.0.0/24 via {NetworkLab.AddressB}");
        NetworkLab.Exec(lab.HostA, "ping", $"-c 1 -W 5 {NetworkLab.AddressB}");
        var macOfB = NetworkLab.InHost(lab.HostB, () => NeighbourLookup.InterfaceOf(IPAddress.Parse(NetworkLab.AddressB)).Address);

        var path = NetworkLab.InHost(lab.HostA, () => NeighbourLookup.Resolve(IPAddress.Parse("198.19.0.5")));

        Assert.Equal(IPAddress.Parse(NetworkLab.AddressB), path.NextHop);
        Assert.Equal(macOfB, path.NextHopMac);
    }

    [RequiresFact(Requirement.Netns)]
    public void InterfaceOf_AnAddressNoInterfaceHolds_IsRefusedNamingIt()
    {
        using var lab = new NetworkLab();

        var error = Assert.Throws<InvalidOperationException>(() => NetworkLab.InHost(lab.HostA, () => NeighbourLookup.InterfaceOf(IPAddress.Parse("198.18.0.9"))));

        Assert.Contains("198.18.0.9", error.InnerException!.Message, StringComparison.Ordinal);
    }
}
