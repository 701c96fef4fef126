using System.Diagnostics.Metrics;

namespace Salvo.Tunnel;

/// <summary>
/// A tunnel's instruments on its own <see cref="Meter"/> named "Salvo" (disposed with the engine). They are
/// observable: each reads <see cref="TunnelCounters"/> when a listener collects, so the data path pays nothing.
/// </summary>
internal sealed class TunnelMetrics : IDisposable
{
    public const string MeterName = "Salvo";

    private static readonly TunnelDropReason[] s_reasons = Enum.GetValues<TunnelDropReason>();
    private static readonly string[] s_reasonTags = [.. s_reasons.Select(TagOf)];

    private readonly Meter _meter;

    public TunnelMetrics(TunnelCounters counters, string name)
    {
        _meter = new Meter(MeterName, typeof(TunnelMetrics).Assembly.GetName().Version?.ToString());
        var tunnel = new KeyValuePair<string, object?>("salvo.tunnel.name", name);
        Measurement<long> One(long value) => new(value, tunnel);

        _meter.CreateObservableCounter("salvo.tunnel.packets.sent", () => One(counters.PacketsSent), "{packet}", "IP packets encrypted and sent to a peer.");
        _meter.CreateObservableCounter("salvo.tunnel.bytes.sent", () => One(counters.BytesSent), "By", "Bytes of the IP packets sent (before padding and encryption).");
        _meter.CreateObservableCounter("salvo.tunnel.packets.received", () => One(counters.PacketsReceived), "{packet}", "IP packets decrypted and delivered to the device.");
        _meter.CreateObservableCounter("salvo.tunnel.bytes.received", () => One(counters.BytesReceived), "By", "Bytes of the IP packets delivered.");
        _meter.CreateObservableCounter(
            "salvo.tunnel.handshakes",
            () => new[]
            {
                new Measurement<long>(counters.HandshakesInitiated, tunnel, new("salvo.tunnel.role", "initiator")),
                new Measurement<long>(counters.HandshakesAnswered, tunnel, new("salvo.tunnel.role", "responder")),
            },
            "{handshake}",
            "Handshakes completed, by salvo.tunnel.role: initiator, responder.");
        _meter.CreateObservableCounter(
            "salvo.tunnel.path.switches",
            () => new[]
            {
                new Measurement<long>(counters.PathSwitchesToTcp, tunnel, new("salvo.tunnel.path", "tcp")),
                new Measurement<long>(counters.PathSwitchesToUdp, tunnel, new("salvo.tunnel.path", "udp")),
            },
            "{switch}",
            "Peers moved between UDP and the TCP fallback, by salvo.tunnel.path: the path moved to (tcp, udp).");
        _meter.CreateObservableCounter(
            "salvo.tunnel.decryption.failures", () => One(counters[TunnelDropReason.DecryptionFailed]), "{message}", "Transport messages whose tag did not verify.");
        _meter.CreateObservableCounter(
            "salvo.tunnel.replays.rejected", () => One(counters[TunnelDropReason.Replayed]), "{message}", "Transport messages refused by the replay window.");
        _meter.CreateObservableCounter(
            "salvo.tunnel.cookie_replies.sent", () => One(counters.CookieRepliesSent), "{message}", "Cookie replies sent while under load.");
        _meter.CreateObservableCounter(
            "salvo.tunnel.dropped",
            () => s_reasons.Select((reason, i) => new Measurement<long>(counters[reason], tunnel, new("salvo.drop.reason", s_reasonTags[i]))),
            "{message}",
            "Datagrams and packets dropped, by salvo.drop.reason (snake_case of TunnelDropReason, e.g. decryption_failed).");
    }

    public void Dispose() => _meter.Dispose();

    /// <summary>The reason as a tag value: DecryptionFailed -> decryption_failed.</summary>
    internal static string TagOf(TunnelDropReason reason) =>
        string.Concat(reason.ToString().Select((c, i) => char.IsUpper(c) && i > 0 ? "_" + char.ToLowerInvariant(c) : char.ToLowerInvariant(c).ToString()));
}
