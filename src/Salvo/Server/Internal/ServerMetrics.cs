using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Net.Sockets;

namespace Salvo.Server;

/// <summary>
/// A server's instruments on a <see cref="Meter"/> named "Salvo", tagged with OpenTelemetry's network attributes so
/// several servers in one process stay apart. The meter comes from the options' <see cref="IMeterFactory"/>, which
/// owns it and may outlive the server, or else is the server's own and is disposed with it.
/// </summary>
internal sealed class ServerMetrics : IDisposable
{
    public const string MeterName = "Salvo";

    private readonly Meter _meter;
    private readonly bool _ownsMeter;
    private readonly KeyValuePair<string, object?>[] _observedTags;

    // The observable instruments' sources, cleared on dispose: a factory's meter outlives the server and keeps its
    // instruments (they cannot be removed one by one), so they must not keep the server itself alive.
    private Func<long>? _queueDepth;
    private Func<long?>? _kernelDrops;
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

    public ServerMetrics(IMeterFactory? meterFactory, AddressFamily family, int port, Func<long> queueDepth, Func<long?> kernelDrops)
    {
        var version = typeof(ServerMetrics).Assembly.GetName().Version?.ToString();
        _ownsMeter = meterFactory is null;
        _meter = meterFactory?.Create(new MeterOptions(MeterName) { Version = version }) ?? new Meter(MeterName, version);
        _transport = new("network.transport", "udp");
        _type = new("network.type", family == AddressFamily.InterNetworkV6 ? "ipv6" : "ipv4");
        _port = new("server.port", port);
        _observedTags = [_transport, _type, _port];
        _queueDepth = queueDepth;
        _kernelDrops = kernelDrops;

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
            "salvo.server.queue.depth", () => Observe(Volatile.Read(ref _queueDepth)?.Invoke()), "{datagram}", "Datagrams queued for handlers.");
        _meter.CreateObservableCounter(
            "salvo.server.kernel.drops", () => Observe(Volatile.Read(ref _kernelDrops)?.Invoke()), "{datagram}",
            "Datagrams the kernel dropped on the server's sockets because the receive buffer was full (Linux: SO_MEMINFO).");
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

    /// <summary>A factory's meter outlives the server: its observable instruments then report nothing more.</summary>
    public void Dispose()
    {
        Volatile.Write(ref _queueDepth, null);
        Volatile.Write(ref _kernelDrops, null);
        if (_ownsMeter)
        {
            _meter.Dispose();
        }
    }

    private IEnumerable<Measurement<long>> Observe(long? value) =>
        value is long observed ? [new Measurement<long>(observed, _observedTags)] : [];

    // TagList holds up to eight tags inline: recording allocates nothing.
    private TagList Tags() => new() { _transport, _type, _port };
}
