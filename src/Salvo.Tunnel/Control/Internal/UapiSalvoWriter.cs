using System.Globalization;
using System.Text;

namespace Salvo.Tunnel.Control;

/// <summary>
/// Writes the answer to Salvo's own request <c>get=salvo</c>, which <c>wg</c> never sends (wireguard-go closes the
/// connection on it, so a client learns at once that no Salvo daemon answers): the counters the protocol's
/// <c>get=1</c> has no key for. Same framing as <c>get=1</c>: key=value lines, device first, then one block per peer
/// opened by its <c>public_key</c>, written a page of peers at a time as <c>get=1</c> is; the caller adds <c>errno=0</c>. Repeated <c>dropped</c> lines carry
/// "REASON:COUNT" for every <see cref="TunnelDropReason"/>, zeros included.
/// </summary>
internal static class UapiSalvoWriter
{
    /// <summary>The request line.</summary>
    public static ReadOnlySpan<byte> Request => "get=salvo"u8;

    /// <summary>The answer's first line; its number grows when a key changes meaning.</summary>
    public const string Version = "salvo=1";

    /// <summary>Writes the device's counters and returns the snapshot of peers to write after them, a page at a time (as <c>get=1</c>).</summary>
    public static Protocol.Peer[] WriteDevice(StringBuilder text, TunnelEngine engine)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(engine);
        var counters = engine.Counters;
        text.Append(Version).Append('\n');
        Line(text, "cookie_replies_sent", counters.CookieRepliesSent);
        Line(text, "cookie_replies_received", counters.CookieRepliesReceived);
        Line(text, "receive_batches", counters.ReceiveBatches);
        Line(text, "receive_batch_datagrams", counters.DatagramsInReceiveBatches);
        Line(text, "send_batches", counters.SendBatches);
        Line(text, "send_batch_packets", counters.PacketsInSendBatches);
        foreach (var (reason, count) in counters.DropCounts())
        {
            text.Append("dropped=").Append(reason.ToString()).Append(':').Append(count.ToString(CultureInfo.InvariantCulture)).Append('\n');
        }

        return engine.GetControlSnapshot().Peers;
    }

    /// <summary>Writes one peer's lines.</summary>
    public static void WritePeer(StringBuilder text, PeerStatus peer)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(peer);
        text.Append("public_key=").Append(Convert.ToHexStringLower(peer.PublicKey.Bytes)).Append('\n');
        text.Append("path=").Append(peer.Path.ToString().ToLowerInvariant()).Append('\n');
        if (peer.PathChanged is { } changed)
        {
            Line(text, "path_changed_sec", changed.ToUnixTimeSeconds());
            text.Append("path_reason=").Append(OneLine(peer.PathReason)).Append('\n');
        }

        Line(text, "initiations_sent", peer.InitiationsSent);
        Line(text, "initiations_unanswered", peer.InitiationsUnanswered);
        if (peer.UnansweredSince is { } since)
        {
            Line(text, "unanswered_since_sec", since.ToUnixTimeSeconds());
        }

        Line(text, "unanswered", peer.IsUnanswered ? 1 : 0);
    }

    /// <summary>A value can never end its line early: the reason is the engine's own text, but a line break would split the answer.</summary>
    private static string OneLine(string? value) => (value ?? string.Empty).ReplaceLineEndings(" ");

    private static void Line(StringBuilder text, string name, long value) =>
        text.Append(name).Append('=').Append(value.ToString(CultureInfo.InvariantCulture)).Append('\n');
}
