using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>Two running devices on loopback with in-memory TUN devices: A (198.19.0.1) knows B's endpoint, B (198.19.0.2) learns A's.</summary>
internal sealed class DevicePair : IDisposable
{
    public DevicePair(IPAddress loopback, TcpFallbackMode modeA = TcpFallbackMode.Auto)
    {
        var keyA = WireGuardKey.GeneratePrivateKey();
        var keyB = WireGuardKey.GeneratePrivateKey();
        B = TunnelDevice.Start(
            new TunnelConfiguration { PrivateKey = keyB, Peers = [new PeerConfiguration { PublicKey = keyA.DerivePublicKey(), AllowedIps = [IPPrefix.Parse("198.19.0.1/32")] }] },
            TunB);
        A = TunnelDevice.Start(
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

    public void Dispose()
    {
        A.Dispose();
        B.Dispose();
    }
}
