using System.Globalization;
using System.Text;
using Salvo.Tunnel;

namespace Salvo.Perf.Tunnel;

/// <summary>The status text of a running tunnel, laid out like <c>wg show</c>.</summary>
internal static class TunnelStatusText
{
    public static string Format(TunnelDevice tunnel)
    {
        var text = new StringBuilder();
        var invariant = CultureInfo.InvariantCulture;
        text.Append(invariant, $"interface: {tunnel.InterfaceName}\n");
        text.Append(invariant, $"  public key: {tunnel.Engine.PublicKey}\n");
        text.Append(invariant, $"  listening port: {tunnel.ListenPort}\n");
        foreach (var peer in tunnel.Engine.GetPeers())
        {
            text.Append(invariant, $"\npeer: {peer.PublicKey}\n");
            if (peer.Endpoint is not null)
            {
                text.Append(invariant, $"  endpoint: {peer.Endpoint}\n");
            }

            text.Append(invariant, $"  allowed ips: {(peer.AllowedIps.Count == 0 ? "(none)" : string.Join(", ", peer.AllowedIps))}\n");
            if (peer.LatestHandshake is { } handshake)
            {
                var ago = DateTimeOffset.UtcNow - handshake;
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
}
