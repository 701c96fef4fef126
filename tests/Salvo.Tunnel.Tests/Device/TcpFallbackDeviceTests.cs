using System.Net;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>Two running devices on loopback with in-memory TUN devices, the WireGuard messages between them on the TCP fallback.</summary>
[Collection(TcpFallbackDevicesCollection.Name)]
public sealed class TcpFallbackDeviceTests
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(15);

    [Fact]
    public void TcpFallbackOnly_PacketsCrossBothWays_OverTheTcpListenerOnTheUdpPortNumber()
    {
        using var devices = new DevicePair(IPAddress.Loopback, modeA: TcpFallbackMode.Only);

        var toB = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 100);
        var deadline = DateTime.UtcNow + s_wait;
        byte[]? delivered = null;
        while (delivered is null && DateTime.UtcNow < deadline)
        {
            // Packets sent before the connection is up have no route yet: send again until one arrives.
            devices.TunA.Inject(toB);
            delivered = devices.TunB.TakeDelivered(TimeSpan.FromMilliseconds(200));
        }

        Assert.Equal(toB, delivered);
        // Packets injected while A was still dialing had no connection to go on and were dropped, and counted, by
        // design; from the first delivery on, the connection carries every packet.
        var dropsWhileConnecting = devices.A.TcpSendDrops;
        var toA = TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 200);
        devices.TunB.Inject(toA);
        Assert.Equal(toA, devices.TunA.TakeDelivered(s_wait));
        Assert.Equal(TunnelPath.Tcp, devices.A.Engine.GetPeers()[0].Path);
        Assert.Equal(TunnelPath.Tcp, devices.B.Engine.GetPeers()[0].Path);
        Assert.Equal(0, devices.A.Engine.Counters.PathSwitchesToUdp);
        Assert.Equal(dropsWhileConnecting, devices.A.TcpSendDrops);
    }
}
