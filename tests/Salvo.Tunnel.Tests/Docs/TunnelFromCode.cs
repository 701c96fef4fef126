using System.Net;
using System.Runtime.Versioning;
using Microsoft.Extensions.Logging;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

[SupportedOSPlatform("linux")]
internal static class TunnelFromCode
{
    /// <summary>Runs a tunnel to one peer on the TUN interface salvo0 until <paramref name="stop"/> fires, then reports.</summary>
    public static void Run(WireGuardKey privateKey, WireGuardKey peer, IPEndPoint peerEndpoint, ILogger logger, TextWriter output, CancellationToken stop)
    {
        // The same as a wg / wg-quick file read with WireGuardConfigParser.ParseFile("salvo0.conf").
        var configuration = new TunnelConfiguration
        {
            PrivateKey = privateKey,
            ListenPort = 51820,
            Peers =
            [
                new PeerConfiguration
                {
                    PublicKey = peer,
                    Endpoint = peerEndpoint,
                    AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                    PersistentKeepalive = TimeSpan.FromSeconds(25),
                    TcpFallback = TcpFallbackMode.Auto,
                },
            ],
        };

        // KernelTunDevice is Linux-only; any other ITunDevice (one in memory, say) can stand in for it.
        using var tunnel = TunnelDevice.Start(configuration, KernelTunDevice.Open("salvo0"), logger: logger);
        output.WriteLine($"{tunnel.InterfaceName}: UDP port {tunnel.ListenPort}, public key {tunnel.Engine.PublicKey}");

        stop.WaitHandle.WaitOne();

        foreach (var status in tunnel.Engine.GetPeers())
        {
            output.WriteLine($"peer {status.PublicKey} at {status.Endpoint} over {status.Path}: {status.ReceivedBytes} B in, {status.SentBytes} B out");
        }

        var counters = tunnel.Engine.Counters;
        output.WriteLine($"{counters.PacketsReceived} packets in, {counters.PacketsSent} out, {counters.TotalDropped} dropped ({counters[TunnelDropReason.DecryptionFailed]} failed decryption)");
    }
}
