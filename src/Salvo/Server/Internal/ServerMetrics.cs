using System.Diagnostics.Metrics;
using System.Net.Sockets;
using Salvo.Diagnostics;

namespace Salvo.Server;

/// <summary>
/// A server's instruments on the <see cref="SalvoMeter"/>, tagged with OpenTelemetry's network attributes so several
/// servers in one process stay apart. All are observable: each reads the server's statistics (the sockets' and workers'
/// counters) when a listener collects, so the data path counts a batch once and the meter adds nothing to it.
/// </summary>
internal sealed class ServerMetrics : IDisposable
{
    private readonly KeyValuePair<string, object?>[] _tags;
    private readonly KeyValuePair<string, object?>[][] _dropTags;

    // Cleared on dispose: the meter outlives the server and keeps its instruments (they cannot be removed one by
    // one), so they must not keep the server itself alive.
    private Func<DatagramServerStatistics>? _statistics;

    public ServerMetrics(IMeterFactory? meterFactory, AddressFamily family, int port, Func<DatagramServerStatistics> statistics)
    {
        var meter = SalvoMeter.Get(meterFactory);
        _tags = [new("network.transport", "udp"), new("network.type", family == AddressFamily.InterNetworkV6 ? "ipv6" : "ipv4"), new("server.port", port)];
        _dropTags = [.. DatagramDropCounts.Reasons.Select(reason =>
            (KeyValuePair<string, object?>[])[.. _tags, new(SalvoMeter.DropReasonTag, DatagramDropCounts.NameOf(reason))])];
        _statistics = statistics;

        meter.CreateObservableCounter("salvo.server.datagrams.received", () => Observe(s => s.DatagramsReceived), "{datagram}", "Datagrams received.");
        meter.CreateObservableCounter("salvo.server.bytes.received", () => Observe(s => s.BytesReceived), "By", "Payload bytes received.");
        meter.CreateObservableCounter(
            "salvo.server.receive.calls", () => Observe(s => s.ReceiveBatches), "{call}",
            "Receive calls that returned data; datagrams received over this is the batching achieved.");
        meter.CreateObservableCounter("salvo.server.datagrams.sent", () => Observe(s => s.DatagramsSent), "{datagram}", "Replies the kernel accepted.");
        meter.CreateObservableCounter("salvo.server.bytes.sent", () => Observe(s => s.BytesSent), "By", "Payload bytes of replies sent.");
        meter.CreateObservableCounter(
            "salvo.server.datagrams.dropped", ObserveDrops, "{datagram}",
            "Datagrams dropped after receiving, by error.type (snake_case of DatagramDropReason, e.g. queue_full).");
        meter.CreateObservableCounter("salvo.server.handler.errors", () => Observe(s => s.HandlerErrors), "{error}", "Handler calls that threw.");
        meter.CreateObservableUpDownCounter("salvo.server.queue.depth", () => Observe(s => s.QueueDepth), "{datagram}", "Datagrams queued for handlers.");
        meter.CreateObservableCounter(
            "salvo.server.kernel.drops", () => Observe(s => s.KernelDrops), "{datagram}",
            "Datagrams the kernel dropped on the server's sockets because the receive buffer was full (Linux: SO_MEMINFO).");
        meter.CreateObservableCounter(
            "salvo.server.frames.malformed", () => Observe(s => s.MalformedFrames), "{frame}",
            "Frames for the server's port that an AF_XDP socket took off the wire and could not deliver (0 on other backends).");
    }

    /// <summary>The meter outlives the server: its instruments then report nothing more.</summary>
    public void Dispose() => Volatile.Write(ref _statistics, null);

    private IEnumerable<Measurement<long>> Observe(Func<DatagramServerStatistics, long?> read) =>
        Volatile.Read(ref _statistics) is { } statistics && read(statistics()) is long value ? [new Measurement<long>(value, _tags)] : [];

    private IEnumerable<Measurement<long>> ObserveDrops()
    {
        if (Volatile.Read(ref _statistics) is not { } statistics)
        {
            return [];
        }

        var dropped = statistics().DroppedByReason;
        return [.. DatagramDropCounts.Reasons.Select((reason, i) => new Measurement<long>(dropped[reason], _dropTags[i]))];
    }
}
