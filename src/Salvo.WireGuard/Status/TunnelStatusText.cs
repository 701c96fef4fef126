using System.Globalization;
using System.Text;
using Salvo.Tunnel;

namespace Salvo.WireGuard.Status;

/// <summary>The status text of a running tunnel, laid out like <c>wg show</c>, with the drops by reason after the port.</summary>
internal static class TunnelStatusText
{
    /// <summary>The text for one interface; <paramref name="now"/> is what handshake ages are measured from.</summary>
    public static string Format(string interfaceName, WireGuardKey? publicKey, int listenPort, IEnumerable<PeerStatus> peers, DateTimeOffset now) =>
        Format(TunnelStatusDocument.From(interfaceName, publicKey, listenPort, peers, counters: null, now), now);

    /// <summary>The text for one interface's document; <paramref name="now"/> is what handshake ages are measured from.</summary>
    public static string Format(TunnelStatusDocument status, DateTimeOffset now)
    {
        var text = new StringBuilder();
        var invariant = CultureInfo.InvariantCulture;
        text.Append(invariant, $"interface: {status.Interface}\n");
        text.Append(invariant, $"  public key: {status.PublicKey}\n");
        text.Append(invariant, $"  listening port: {status.ListenPort}\n");
        var dropped = status.Dropped.Where(d => d.Value > 0).ToList();
        if (dropped.Count > 0 || status.CookieRepliesSent > 0)
        {
            text.Append(invariant, $"  cookie replies sent: {status.CookieRepliesSent}\n");
            text.Append(invariant, $"  dropped: {(dropped.Count == 0 ? "none" : string.Join(", ", dropped.Select(d => $"{d.Key} {d.Value}")))}\n");
        }

        if (status.CookieRepliesReceived > 0)
        {
            text.Append(invariant, $"  cookie replies received: {status.CookieRepliesReceived}\n");
        }

        if (status.MeanReceiveBatch is not null || status.MeanSendBatch is not null)
        {
            text.Append(invariant, $"  batches: {status.MeanReceiveBatch ?? 0:0.0} datagrams per receive, {status.MeanSendBatch ?? 0:0.0} packets per device read\n");
        }

        foreach (var peer in status.Peers)
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
            if (peer.PersistentKeepaliveSeconds is { } keepalive)
            {
                text.Append(invariant, $"  persistent keepalive: every {keepalive} seconds\n");
            }

            if (peer.InitiationsSent is > 0)
            {
                text.Append(invariant, $"  handshake initiations: {peer.InitiationsSent} sent, {peer.InitiationsUnanswered ?? 0} unanswered\n");
            }

            if (peer.Unanswered)
            {
                var seconds = peer.UnansweredSince is { } since ? Math.Max(0, (int)(now - since).TotalSeconds) : 0;
                text.Append(invariant, $"  warning: no answer to {peer.InitiationsUnanswered} handshake initiations over {seconds} seconds: check the public keys on both sides, the endpoint, and that UDP gets through (a firewall)\n");
            }
        }

        return text.ToString();
    }

    /// <summary>"udp", or "tcp (since 12 seconds ago: why)": the path the peer's messages take, and the last switch.</summary>
    private static string Path(TunnelPeerDocument peer, DateTimeOffset now) =>
        peer.PathChanged is { } changed
            ? string.Create(CultureInfo.InvariantCulture, $"{peer.Path} (since {Math.Max(0, (int)(now - changed).TotalSeconds)} seconds ago: {peer.PathReason})")
            : peer.Path;
}
