using System.Diagnostics.Metrics;
using Salvo.Diagnostics;

namespace Salvo.Tunnel;

/// <summary>
/// A tunnel's instruments on the <see cref="SalvoMeter"/>. They are observable: each reads <see cref="TunnelCounters"/>
/// when a listener collects, so the data path pays nothing; once the engine is disposed they report nothing more (the
/// process-wide meter keeps its instruments, which must not keep the engine's counters alive).
/// </summary>
internal sealed class TunnelMetrics : IDisposable
{
    private static readonly TunnelDropReason[] s_reasons = Enum.GetValues<TunnelDropReason>();
    private static readonly string[] s_reasonTags = [.. s_reasons.Select(TunnelCounters.NameOf)];

    private TunnelCounters? _counters;

    public TunnelMetrics(TunnelCounters counters, string name)
    {
        _counters = counters;
        var meter = SalvoMeter.Get(null);
        var tunnel = new KeyValuePair<string, object?>("salvo.tunnel.name", name);
        IEnumerable<Measurement<long>> One(Func<TunnelCounters, long> read) =>
            Volatile.Read(ref _counters) is { } live ? [new Measurement<long>(read(live), tunnel)] : [];
        IEnumerable<Measurement<long>> Each(Func<TunnelCounters, IEnumerable<Measurement<long>>> read) =>
            Volatile.Read(ref _counters) is { } live ? read(live) : [];

        meter.CreateObservableCounter("salvo.tunnel.packets.sent", () => One(c => c.PacketsSent), "{packet}", "IP packets encrypted and sent to a peer.");
        meter.CreateObservableCounter("salvo.tunnel.bytes.sent", () => One(c => c.BytesSent), "By", "Bytes of the IP packets sent (before padding and encryption).");
        meter.CreateObservableCounter("salvo.tunnel.packets.received", () => One(c => c.PacketsReceived), "{packet}", "IP packets decrypted and delivered to the device.");
        meter.CreateObservableCounter("salvo.tunnel.bytes.received", () => One(c => c.BytesReceived), "By", "Bytes of the IP packets delivered.");
        meter.CreateObservableCounter(
            "salvo.tunnel.handshakes",
            () => Each(c =>
            [
                new Measurement<long>(c.HandshakesInitiated, tunnel, new("salvo.tunnel.role", "initiator")),
                new Measurement<long>(c.HandshakesAnswered, tunnel, new("salvo.tunnel.role", "responder")),
            ]),
            "{handshake}",
            "Handshakes completed, by salvo.tunnel.role: initiator, responder.");
        meter.CreateObservableCounter(
            "salvo.tunnel.path.switches",
            () => Each(c =>
            [
                new Measurement<long>(c.PathSwitchesToTcp, tunnel, new("salvo.tunnel.path", "tcp")),
                new Measurement<long>(c.PathSwitchesToUdp, tunnel, new("salvo.tunnel.path", "udp")),
            ]),
            "{switch}",
            "Peers moved between UDP and the TCP fallback, by salvo.tunnel.path: the path moved to (tcp, udp).");
        meter.CreateObservableCounter(
            "salvo.tunnel.decryption.failures", () => One(c => c[TunnelDropReason.DecryptionFailed]), "{message}", "Transport messages whose tag did not verify.");
        meter.CreateObservableCounter(
            "salvo.tunnel.replays.rejected", () => One(c => c[TunnelDropReason.Replayed]), "{message}", "Transport messages refused by the replay window.");
        meter.CreateObservableCounter(
            "salvo.tunnel.cookie_replies.sent", () => One(c => c.CookieRepliesSent), "{message}", "Cookie replies sent while under load.");
        meter.CreateObservableCounter(
            "salvo.tunnel.dropped",
            () => Each(c => s_reasons.Select((reason, i) => new Measurement<long>(c[reason], tunnel, new(SalvoMeter.DropReasonTag, s_reasonTags[i])))),
            "{message}",
            "Datagrams and packets dropped, by error.type (snake_case of TunnelDropReason, e.g. decryption_failed).");
    }

    public void Dispose() => Volatile.Write(ref _counters, null);

}
