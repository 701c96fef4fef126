using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// Three running <see cref="TunnelDevice"/>s on loopback UDP with in-memory TUN devices: B (198.19.0.2) answers A
/// (198.19.0.1), whose datagrams pass through a <see cref="UdpRelay"/> that can replay or alter them, and C
/// (198.19.0.3), which reaches B directly. B learns both endpoints from their handshakes.
/// </summary>
internal sealed class LoopbackTunnels : IDisposable
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(15);

    public LoopbackTunnels()
    {
        var keyA = WireGuardKey.GeneratePrivateKey();
        var keyB = WireGuardKey.GeneratePrivateKey();
        var keyC = WireGuardKey.GeneratePrivateKey();
        B = TunnelDevice.Start(
            new TunnelConfiguration
            {
                PrivateKey = keyB,
                Peers = [Peer(keyA, "198.19.0.1/32", endpoint: null), Peer(keyC, "198.19.0.3/32", endpoint: null)],
            },
            TunB,
            logger: LoggerB);
        var endpointB = new IPEndPoint(IPAddress.Loopback, B.ListenPort);
        Relay = new UdpRelay(endpointB);
        A = TunnelDevice.Start(new TunnelConfiguration { PrivateKey = keyA, Peers = [Peer(keyB, "198.19.0.2/32", Relay.EndPoint)] }, TunA);
        C = TunnelDevice.Start(new TunnelConfiguration { PrivateKey = keyC, Peers = [Peer(keyB, "198.19.0.2/32", endpointB)] }, TunC);
    }

    public MemoryTun TunA { get; } = new("a");

    public MemoryTun TunB { get; } = new("b");

    public MemoryTun TunC { get; } = new("c");

    public TunnelDevice A { get; }

    public TunnelDevice B { get; }

    public TunnelDevice C { get; }

    public UdpRelay Relay { get; }

    public RecordingLogger LoggerB { get; } = new();

    public IPEndPoint EndPointB => new(IPAddress.Loopback, B.ListenPort);

    /// <summary>Sends a packet from <paramref name="tun"/>'s address to B; distinct sizes tell packets apart.</summary>
    public static byte[] Inject(MemoryTun tun, string source, int payloadLength)
    {
        var packet = TunnelPair.IPv4Packet(source, "198.19.0.2", payloadLength);
        tun.Inject(packet);
        return packet;
    }

    /// <summary>Asserts that the next packet B delivers is <paramref name="packet"/> (nothing forged came first).</summary>
    public void AssertNextDeliveredIs(byte[] packet)
    {
        var delivered = TunB.TakeDelivered(s_wait);
        Assert.NotNull(delivered);
        Assert.Equal(packet, delivered);
    }

    /// <summary>A to B carries a new packet, and it is the next thing B delivers.</summary>
    public void AssertCarries(int payloadLength) => AssertNextDeliveredIs(Inject(TunA, "198.19.0.1", payloadLength));

    public void Dispose()
    {
        A.Dispose();
        C.Dispose();
        Relay.Dispose();
        B.Dispose();
    }

    private static PeerConfiguration Peer(WireGuardKey key, string allowed, IPEndPoint? endpoint) =>
        new() { PublicKey = key.DerivePublicKey(), AllowedIps = [IPPrefix.Parse(allowed)], Endpoint = endpoint };
}
