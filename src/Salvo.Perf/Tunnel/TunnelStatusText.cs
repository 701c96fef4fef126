using System.Globalization;
using System.Text;
using Salvo.Tunnel;

namespace Salvo.Perf.Tunnel;

/// <summary>The status text of a running tunnel, laid out like <c>wg show</c>.</summary>
internal static class TunnelStatusText
{
    public static string Format(TunnelDevice tunnel, DateTimeOffset now) =>
        Format(tunnel.InterfaceName, tunnel.Engine.PublicKey, tunnel.ListenPort, tunnel.Engine.GetPeers(), now);

    /// <summary>The text for one interface; <paramref name="now"/> is what handshake ages are measured from.</summary>
    public static string Format(string interfaceName, WireGuardKey? publicKey, int listenPort, IEnumerable<PeerStatus> peers, DateTimeOffset now)
    {
        var text = new StringBuilder();
        var invariant = CultureInfo.InvariantCulture;
        text.Append(invariant, $"interface: {interfaceName}\n");
        text.Append(invariant, $"  public key: {publicKey?.ToString() ?? "(none)"}\n");
        text.Append(invariant, $"  listening port: {listenPort}\n");
        foreach (var peer in peers)
        {
            text.Append(invariant, $"\npeer: {peer.PublicKey}\n");
            if (peer.Endpoint is not null)
            {
                text.Append(invariant, $"  endpoint: {peer.Endpoint}\n");
                text.Append(invariant, $"  path: {Path(peer, now)}\n");
            }

            text.Append(invariant, $"  allowed ips: {(peer.AllowedIps.Count == 0 ? "(none)" : string.Join(", ", peer.AllowedIps))}\n");
            if (peer.LatestHandshake is { } handshake)
            {
                var ago = now - handshake;
                text.Append(invariant, $"  latest handshake: {Math.Max(0, (int)ago.TotalSeconds)} seconds ago\n");
            }

            text.Append(invariant, $"  transfer: {peer.ReceivedBytes} B received, {peer.SentBytes} B sent\n");
            if (peer.PersistentKeepalive is { } keepalive)
            {
                text.Append(invariant, $"  persistent keepalive: every {(int)keepalive.TotalSeconds} seconds\n");
            }
        }

        return text.ToString();
    }

    /// <summary>"udp", or "tcp (since 12 seconds ago: why)": the path the peer's messages take, and the last switch.</summary>
    private static string Path(PeerStatus peer, DateTimeOffset now)
    {
        var name = peer.Path.ToString().ToLowerInvariant();
        return peer.PathChanged is { } changed
            ? string.Create(CultureInfo.InvariantCulture, $"{name} (since {Math.Max(0, (int)(now - changed).TotalSeconds)} seconds ago: {peer.PathReason})")
            : name;
    }
}
