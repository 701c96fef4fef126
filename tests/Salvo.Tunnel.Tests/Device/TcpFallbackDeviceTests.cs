using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>Two running devices on loopback with in-memory TUN devices, the WireGuard messages between them on the TCP fallback.</summary>
public sealed class TcpFallbackDeviceTests
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(15);

    [Fact]
    public void TcpFallbackOnly_PacketsCrossBothWays_OverTheTcpListenerOnTheUdpPortNumber()
    {
        var keyA = WireGuardKey.GeneratePrivateKey();
        var keyB = WireGuardKey.GeneratePrivateKey();
        var tunA = new MemoryTun("a");
        var tunB = new MemoryTun("b");
        var logA = new RecordingLogger();
        using var b = TunnelDevice.Start(
            new TunnelConfiguration { PrivateKey = keyB, Peers = [new PeerConfiguration { PublicKey = keyA.DerivePublicKey(), AllowedIps = [IPPrefix.Parse("198.19.0.1/32")] }] },
            tunB);
        using var a = TunnelDevice.Start(
            new TunnelConfiguration
            {
                PrivateKey = keyA,
                Peers =
                [
                    new PeerConfiguration
                    {
                        PublicKey = keyB.DerivePublicKey(),
                        AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                        Endpoint = new IPEndPoint(IPAddress.Loopback, b.ListenPort),
                        TcpFallback = TcpFallbackMode.Only,
                    },
                ],
            },
            tunA,
            logger: logA);

        var toB = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 100);
        var deadline = DateTime.UtcNow + s_wait;
        byte[]? delivered = null;
        while (delivered is null && DateTime.UtcNow < deadline)
        {
            // Packets sent before the connection is up have no route yet: send again until one arrives.
            tunA.Inject(toB);
            delivered = tunB.TakeDelivered(TimeSpan.FromMilliseconds(200));
        }

        Assert.Equal(toB, delivered);
        var toA = TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 200);
        tunB.Inject(toA);
        Assert.Equal(toA, tunA.TakeDelivered(s_wait));
        Assert.Equal(TunnelPath.Tcp, a.Engine.GetPeers()[0].Path);
        Assert.Equal(TunnelPath.Tcp, b.Engine.GetPeers()[0].Path);
        Assert.Equal(0, a.Engine.Counters.PathSwitchesToUdp);
        Assert.Equal(0, a.TcpSendDrops);
    }
}
