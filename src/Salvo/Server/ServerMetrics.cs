using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Net.Sockets;

namespace Salvo.Server;

/// <summary>
/// A server's instruments on its own <see cref="Meter"/> named "Salvo" (disposed with the server), tagged
/// with OpenTelemetry's network attributes so several servers in one process stay apart.
/// </summary>
internal sealed class ServerMetrics : IDisposable
{
    public const string MeterName = "Salvo";

    private readonly Meter _meter;
    private readonly Counter<long> _received;
    private readonly Counter<long> _receivedBytes;
    private readonly Counter<long> _sent;
    private readonly Counter<long> _sentBytes;
    private readonly Counter<long> _dropped;
    private readonly Counter<long> _handlerErrors;
    private readonly Histogram<int> _batchSize;
    private readonly KeyValuePair<string, object?> _transport;
    private readonly KeyValuePair<string, object?> _type;
    private readonly KeyValuePair<string, object?> _port;

    public ServerMetrics(AddressFamily family, int port, Func<long> queueDepth, Func<long?> kernelDrops)
    {
        _meter = new Meter(MeterName, typeof(ServerMetrics).Assembly.GetName().Version?.ToString());
        _transport = new("network.transport", "udp");
        _type = new("network.type", family == AddressFamily.InterNetworkV6 ? "ipv6" : "ipv4");
        _port = new("server.port", port);
        KeyValuePair<string, object?>[] tags = [_transport, _type, _port];

        _received = _meter.CreateCounter<long>("salvo.server.datagrams.received", "{datagram}", "Datagrams received.");
        _receivedBytes = _meter.CreateCounter<long>("salvo.server.bytes.received", "By", "Payload bytes received.");
        _sent = _meter.CreateCounter<long>("salvo.server.datagrams.sent", "{datagram}", "Replies the kernel accepted.");
        _sentBytes = _meter.CreateCounter<long>("salvo.server.bytes.sent", "By", "Payload bytes of replies sent.");
        _dropped = _meter.CreateCounter<long>(
            "salvo.server.datagrams.dropped", "{datagram}", "Datagrams dropped after receiving, by salvo.drop.reason: queue_full, truncated, stopped.");
        _handlerErrors = _meter.CreateCounter<long>("salvo.server.handler.errors", "{error}", "Handler calls that threw.");
        _batchSize = _meter.CreateHistogram<int>(
            "salvo.server.batch.size", "{datagram}", "Datagrams per receive call.",
            advice: new InstrumentAdvice<int> { HistogramBucketBoundaries = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] });
        _meter.CreateObservableUpDownCounter(
            "salvo.server.queue.depth", () => new Measurement<long>(queueDepth(), tags), "{datagram}", "Datagrams queued for handlers.");
        _meter.CreateObservableCounter(
            "salvo.server.kernel.drops", () => ObserveKernelDrops(kernelDrops, tags), "{datagram}",
            "Datagrams the kernel dropped on the server's sockets because the receive buffer was full (Linux /proc/net/udp).");
    }

    public void OnReceived(int datagrams, long bytes)
    {
        var tags = Tags();
        _received.Add(datagrams, tags);
        _receivedBytes.Add(bytes, tags);
        _batchSize.Record(datagrams, tags);
    }

    public void OnSent(int datagrams, long bytes)
    {
        var tags = Tags();
        _sent.Add(datagrams, tags);
        _sentBytes.Add(bytes, tags);
    }

    public void OnDropped(int datagrams, string reason)
    {
        var tags = Tags();
        tags.Add("salvo.drop.reason", reason);
        _dropped.Add(datagrams, tags);
    }

    public void OnHandlerError() => _handlerErrors.Add(1, Tags());

    public void Dispose() => _meter.Dispose();

    private static IEnumerable<Measurement<long>> ObserveKernelDrops(Func<long?> kernelDrops, KeyValuePair<string, object?>[] tags) =>
        kernelDrops() is long drops ? [new Measurement<long>(drops, tags)] : [];

    // TagList holds up to eight tags inline: recording allocates nothing.
    private TagList Tags() => new() { _transport, _type, _port };
}
