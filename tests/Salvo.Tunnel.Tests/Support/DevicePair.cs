using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>Two running devices on loopback with in-memory TUN devices: A (198.19.0.1) knows B's endpoint, B (198.19.0.2) learns A's.</summary>
internal sealed class DevicePair : IDisposable
{
    /// <param name="loopback">The address A reaches B at.</param>
    /// <param name="modeA">A's TCP fallback towards B.</param>
    /// <param name="startA">Starts A on its configuration and device. Defaults to <see cref="TunnelDevice.Start(TunnelConfiguration, ITunDevice, TimeProvider?, Microsoft.Extensions.Logging.ILogger?)"/>.</param>
    /// <param name="startB">Starts B, likewise.</param>
    /// <param name="interfaceMtu">The MTU both in-memory interfaces report from the start (the configured one stays 1,420). Defaults to 0: none reported.</param>
    public DevicePair(
        IPAddress loopback,
        TcpFallbackMode modeA = TcpFallbackMode.Auto,
        Func<TunnelConfiguration, MemoryTun, TunnelDevice>? startA = null,
        Func<TunnelConfiguration, MemoryTun, TunnelDevice>? startB = null,
        int interfaceMtu = 0)
    {
        TunA.Mtu = interfaceMtu;
        TunB.Mtu = interfaceMtu;
        startA ??= (configuration, tun) => TunnelDevice.Start(configuration, tun);
        startB ??= (configuration, tun) => TunnelDevice.Start(configuration, tun);
        var keyA = WireGuardKey.GeneratePrivateKey();
        var keyB = WireGuardKey.GeneratePrivateKey();
        B = startB(
            new TunnelConfiguration { PrivateKey = keyB, Peers = [new PeerConfiguration { PublicKey = keyA.DerivePublicKey(), AllowedIps = [IPPrefix.Parse("198.19.0.1/32")] }] },
            TunB);
        A = startA(
            new TunnelConfiguration
            {
                PrivateKey = keyA,
                Peers =
                [
                    new PeerConfiguration
                    {
                        PublicKey = keyB.DerivePublicKey(),
                        AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                        Endpoint = new IPEndPoint(loopback, B.ListenPort),
                        TcpFallback = modeA,
                    },
                ],
            },
            TunA);
    }

    public MemoryTun TunA { get; } = new("a");

    public MemoryTun TunB { get; } = new("b");

    public TunnelDevice A { get; }

    public TunnelDevice B { get; }

    /// <summary>A packet each way crosses, each within <paramref name="patience"/> (the first one waits for the handshake).</summary>
    public void AssertCarriesBothWays(TimeSpan patience)
    {
        var toB = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 50);
        TunA.Inject(toB);
        Assert.Equal(toB, TunB.TakeDelivered(patience));
        var toA = TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 60);
        TunB.Inject(toA);
        Assert.Equal(toA, TunA.TakeDelivered(patience));
    }

    public void Dispose()
    {
        A.Dispose();
        B.Dispose();
    }
}
