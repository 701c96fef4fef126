using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>The device's socket is dual-stack: a peer reached over IPv6 and one over IPv4 both work.</summary>
public sealed class TunnelDeviceDualStackTests
{
    [IPv6Theory]
    [InlineData("::1")]
    [InlineData("127.0.0.1")]
    public void PeerEndpoint_EitherFamily_CarriesPacketsBothWays(string loopback)
    {
        var keyA = WireGuardKey.GeneratePrivateKey();
        var keyB = WireGuardKey.GeneratePrivateKey();
        using var tunB = new MemoryTun("b");
        using var tunA = new MemoryTun("a");
        using var b = TunnelDevice.Start(
            new TunnelConfiguration { PrivateKey = keyB, Peers = [new PeerConfiguration { PublicKey = keyA.DerivePublicKey(), AllowedIps = [IPPrefix.Parse("198.19.0.1/32")] }] },
            tunB);
        using var a = TunnelDevice.Start(
            new TunnelConfiguration
            {
                PrivateKey = keyA,
                Peers = [new PeerConfiguration
                {
                    PublicKey = keyB.DerivePublicKey(),
                    AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                    Endpoint = new IPEndPoint(IPAddress.Parse(loopback), b.ListenPort),
                }],
            },
            tunA);

        var toB = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 50);
        tunA.Inject(toB);
        Assert.Equal(toB, tunB.TakeDelivered(TimeSpan.FromSeconds(15)));
        var toA = TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 60);
        tunB.Inject(toA);
        Assert.Equal(toA, tunA.TakeDelivered(TimeSpan.FromSeconds(15)));

        // B learned A's endpoint from the handshake in the family A used, IPv4 shown unmapped.
        Assert.Equal(IPAddress.Parse(loopback), b.Engine.GetPeers()[0].Endpoint!.Address);
    }
}
