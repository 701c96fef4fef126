using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// A running device on loopback with an in-memory TUN, one peer (keepalive 21 s, 198.19.0.2/32), and its control
/// socket at a path of the test's own, logging into <see cref="Log"/>.
/// </summary>
internal sealed class UapiTestDevice : IDisposable
{
    public UapiTestDevice(UapiLimits? limits = null)
    {
        Device = TunnelDevice.Start(
            new TunnelConfiguration
            {
                PrivateKey = WireGuardKey.GeneratePrivateKey(),
                Peers =
                [
                    new PeerConfiguration
                    {
                        PublicKey = PeerKey,
                        AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                        Endpoint = new IPEndPoint(IPAddress.Loopback, 51820),
                        PersistentKeepalive = TimeSpan.FromSeconds(21),
                        TcpFallback = Salvo.Tunnel.Paths.TcpFallbackMode.Off,
                    },
                ],
            },
            new MemoryTun("uapi"));
        Control = WireGuardControlSocket.Start(Device, Path, Log, limits ?? UapiLimits.Default);
    }

    public string Path { get; } = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"salvo-uapi-{Environment.ProcessId}-{Guid.NewGuid():N}.sock");

    public WireGuardKey PeerKey { get; } = WireGuardKey.GeneratePrivateKey().DerivePublicKey();

    public RecordingLogger Log { get; } = new();

    public TunnelDevice Device { get; }

    public WireGuardControlSocket Control { get; }

    /// <summary>The device as <c>get=1</c> shows it.</summary>
    public string Get() => UapiClient.Request(Path, "get=1\n\n");

    public void Dispose()
    {
        Control.Dispose();
        Device.Dispose();
    }
}
