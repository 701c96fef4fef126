using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Protocol;
using Salvo.Perf.Rr;
using Salvo.Perf.TestServer.Sockperf;
using Salvo.Server;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary>
/// The receiving side of server/client tests: a <see cref="DatagramServer"/> with N workers, each on its own socket
/// sharing one port with SO_REUSEPORT where the platform shards (the kernel keeps each flow on one worker), and a
/// handler that accounts data datagrams per flow and answers rr requests and sockperf messages in the worker's reply
/// batch. Receive errors are the server's: counted, logged, backed off, and the worker goes on.
/// </summary>
internal sealed class ReceiveEngine : IReceiveEngine
{
    private readonly DatagramServer _server;
    private readonly WorkerCounters?[] _counters;
    private readonly SockperfService? _sockperf;
    private readonly bool _answerRequests;
    private UnrecognisedDatagramHandler? _unrecognised;
    private FrameDropCounts _frameDropsAtTestStart;

    /// <param name="bind">Where to listen.</param>
    /// <param name="workers">Sockets sharing the port.</param>
    /// <param name="answerRequests">Whether rr requests are answered.</param>
    /// <param name="backend">The sockets' backend (--backend).</param>
    /// <param name="sockperf">When set, datagrams with a sockperf header are answered the way sockperf's server does.</param>
    /// <exception cref="SocketException">The address is in use or cannot be bound.</exception>
    /// <param name="afXdpBusyPoll">With <see cref="DatagramBackend.AfXdp"/>: the sockets spin on their rings rather than sleep in poll(2).</param>
    public ReceiveEngine(IPEndPoint bind, int workers, bool answerRequests, DatagramBackend backend = DatagramBackend.Auto, SockperfService? sockperf = null, bool afXdpBusyPoll = false)
    {
        _sockperf = sockperf;
        _answerRequests = answerRequests;
        _counters = new WorkerCounters?[workers];
        var options = new DatagramServerOptions
        {
            EndPoint = bind,
            Workers = workers,
            Backend = backend,
            ReceiveBufferSize = 4 << 20,
            SendBufferSize = 4 << 20,
            // A datagram longer than the buffer is still counted, as malformed, rather than dropped unseen.
            DeliverTruncated = true,
        };

        // The server's engine (the one answering requests) shares its port with an iperf3 test's connected per-stream
        // sockets (Iperf3/Iperf3StreamSocket.cs), even with one worker.
        options.Socket.ReusePort = answerRequests;
        Cli.BackendOption.WithBusyPoll(options.Socket, afXdpBusyPoll);
        _server = new DatagramServer(options, new Handler(this));
        _server.StartAsync().GetAwaiter().GetResult();
    }

    /// <summary>The bound address (the actual port when 0 was asked for).</summary>
    public IPEndPoint LocalEndPoint => _server.LocalEndPoint;

    /// <inheritdoc />
    public DatagramBackend Backend => _server.Backend;

    /// <inheritdoc/>
    public FrameDropCounts FrameDrops => _server.GetStatistics().MalformedFramesByReason;

    /// <inheritdoc/>
    public UnrecognisedDatagramHandler? UnrecognisedDatagrams
    {
        get => Volatile.Read(ref _unrecognised);
        set => Volatile.Write(ref _unrecognised, value);
    }

    /// <summary>Starts counting a new test from zero.</summary>
    public void BeginTest()
    {
        _frameDropsAtTestStart = FrameDrops;
        for (var i = 0; i < _counters.Length; i++)
        {
            Volatile.Write(ref _counters[i], new WorkerCounters());
        }
    }

    /// <summary>Stops counting: datagrams that arrive now are not part of any test.</summary>
    public void EndTest()
    {
        for (var i = 0; i < _counters.Length; i++)
        {
            Volatile.Write(ref _counters[i], null);
        }
    }

    /// <summary>The current test's counters, merged over workers (racy while datagrams still arrive).</summary>
    public ReceiveTotals Snapshot(IReadOnlyList<long>? sentPerFlow = null)
    {
        long datagrams = 0, bytes = 0, malformed = 0, lost = 0, outOfOrder = 0, duplicates = 0, sent = 0;
        var jitters = new List<double>();
        var flows = Math.Max(sentPerFlow?.Count ?? 0, ControlMessage.MaxParallel);
        for (var flow = 0; flow < flows; flow++)
        {
            var trackers = _counters.Select(c => c?.Flows[flow]).OfType<SequenceTracker>().ToList();
            var flowSent = sentPerFlow is not null && flow < sentPerFlow.Count ? sentPerFlow[flow] : 0;
            sent += flowSent;
            if (trackers.Count == 0)
            {
                lost += flowSent;
                continue;
            }

            var unique = trackers.Sum(t => t.Unique);
            var highest = trackers.Max(t => t.Highest);
            datagrams += trackers.Sum(t => t.Received);
            outOfOrder += trackers.Sum(t => t.OutOfOrder);
            duplicates += trackers.Sum(t => t.Duplicates);
            lost += Math.Max(0, Math.Max(flowSent, highest + 1) - unique);
            jitters.Add(trackers.MaxBy(t => t.Received)!.JitterNanoseconds);
        }

        foreach (var counters in _counters)
        {
            bytes += counters?.Bytes ?? 0;
            malformed += counters?.Malformed ?? 0;
        }

        return new ReceiveTotals(datagrams, bytes, lost, Math.Max(sent, datagrams - duplicates + lost), outOfOrder, duplicates, malformed,
            jitters.Count == 0 ? 0 : jitters.Average() / 1000.0, FrameDrops - _frameDropsAtTestStart);
    }

    public void Dispose() => _server.DisposeAsync().AsTask().Wait(TimeSpan.FromSeconds(10));

    private void Handle(in DatagramContext context)
    {
        var worker = context.WorkerIndex;
        var counters = Volatile.Read(ref _counters[worker]);
        foreach (var datagram in context.Datagrams)
        {
            var error = PayloadHeader.TryRead(datagram.Payload, out var header);
            if (error == HeaderError.None && header.Kind == PayloadKind.Request && _answerRequests)
            {
                // One reply per request always fits: the reply batch holds BatchSize datagrams of any size.
                RrWire.TryAnswer(datagram.Payload, datagram.Source, context.Replies, out _);
            }
            else if (error is HeaderError.BadMagic or HeaderError.TooShort && IsOtherProtocol(worker, datagram, context.Replies))
            {
                // Another protocol's datagram on this port, handled by it.
            }
            else
            {
                counters?.Record(error, header, datagram.Length, datagram.IsTruncated);
            }
        }
    }

    /// <summary>
    /// A datagram without Salvo's header: one of an iperf3 test's (its set-up, or a stream's data, claimed by source
    /// first: an iperf3 counter of 65,536 reads as a valid sockperf header), else a sockperf client's message
    /// (answered and counted by the sockperf service); false when it is neither, so the test counts it as malformed.
    /// </summary>
    private bool IsOtherProtocol(int worker, in ReceivedDatagram datagram, SendBatch replies)
    {
        if (UnrecognisedDatagrams is { } unrecognised && unrecognised(datagram.Payload, datagram.Source, datagram.IsTruncated))
        {
            return true;
        }

        return _sockperf?.TryAnswerDatagram(worker, datagram, replies) == true;
    }

    private sealed class Handler(ReceiveEngine engine) : IDatagramHandler
    {
        public void Handle(in DatagramContext context) => engine.Handle(context);
    }

    /// <summary>One worker's counters for one test; written by that worker only.</summary>
    private sealed class WorkerCounters
    {
        public SequenceTracker?[] Flows { get; } = new SequenceTracker?[ControlMessage.MaxParallel];

        public long Bytes { get; private set; }

        public long Malformed { get; private set; }

        public void Record(HeaderError error, PayloadHeader header, int length, bool truncated)
        {
            if (error != HeaderError.None || header.Kind != PayloadKind.Data || header.FlowId >= Flows.Length || truncated)
            {
                Malformed++;
                return;
            }

            var tracker = Flows[header.FlowId] ??= new SequenceTracker();
            tracker.Record(header.Sequence, header.SendTimeNanoseconds, MonotonicClock.NowNanoseconds());
            Bytes += length;
        }
    }
}

/// <summary>What a receiving side counted in one test.</summary>
/// <param name="Datagrams">Valid datagrams received (duplicates included).</param>
/// <param name="Bytes">Their payload bytes.</param>
/// <param name="Lost">Datagrams sent (or skipped in sequence) and not received.</param>
/// <param name="Expected">Datagrams the sender sent (or the sequence implies).</param>
/// <param name="OutOfOrder">Arrived after a later one.</param>
/// <param name="Duplicates">Received twice.</param>
/// <param name="Malformed">Failed the header check (or truncated).</param>
/// <param name="JitterMicroseconds">RFC 3550 jitter, mean over flows.</param>
/// <param name="FrameDrops">Frames the AF_XDP receive checks dropped during the test, by reason (all zero on other backends).</param>
internal readonly record struct ReceiveTotals(
    long Datagrams, long Bytes, long Lost, long Expected, long OutOfOrder, long Duplicates, long Malformed, double JitterMicroseconds, FrameDropCounts FrameDrops = default)
{
    /// <summary>Lost over expected, percent.</summary>
    public double LossPercent => Expected == 0 ? 0 : 100.0 * Lost / Expected;
}
