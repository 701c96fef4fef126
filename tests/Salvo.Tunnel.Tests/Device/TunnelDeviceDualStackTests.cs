using System.Net;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>The device's socket is dual-stack: a peer reached over IPv6 and one over IPv4 both work.</summary>
public sealed class TunnelDeviceDualStackTests
{
    [RequiresTheory(Requirement.IPv6)]
    [InlineData("::1")]
    [InlineData("127.0.0.1")]
    public void PeerEndpoint_EitherFamily_CarriesPacketsBothWays(string loopback)
    {
        using var devices = new DevicePair(IPAddress.Parse(loopback));

        var toB = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 50);
        devices.TunA.Inject(toB);
        Assert.Equal(toB, devices.TunB.TakeDelivered(TimeSpan.FromSeconds(15)));
        var toA = TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 60);
        devices.TunB.Inject(toA);
        Assert.Equal(toA, devices.TunA.TakeDelivered(TimeSpan.FromSeconds(15)));

        // B learned A's endpoint from the handshake in the family A used, IPv4 shown unmapped.
        Assert.Equal(IPAddress.Parse(loopback), devices.B.Engine.GetPeers()[0].Endpoint!.Address);
    }
}
