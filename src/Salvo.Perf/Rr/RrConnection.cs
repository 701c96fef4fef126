using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Measurement;
using Salvo.Perf.Pacing;
using Salvo.Perf.Protocol;

namespace Salvo.Perf.Rr;

/// <summary>
/// One client socket of the rr test: a <see cref="DatagramSocket"/> connected to the responder, sending requests
/// in <see cref="SendBatch"/>es and taking responses in <see cref="ReceiveBatch"/>es, so that with many requests in
/// flight one sendmmsg carries every request a received batch released and one recvmmsg takes every response that
/// is waiting. Closed loop: keeps a fixed number of requests in flight, sending the next when one is answered.
/// Fixed rate: a pacer sends on a schedule and a receiver records latency from each request's intended send
/// time, so a stall is charged to every request it delayed (no coordinated omission).
/// </summary>
internal sealed class RrConnection : IDisposable
{
    /// <summary>How long one receive waits before the loop looks at the clock again.</summary>
    private static readonly TimeSpan ReceiveTimeout = TimeSpan.FromMilliseconds(10);

    private readonly DatagramSocket _socket;
    private readonly RrPlan _plan;
    private readonly IRrCodec _codec;
    private readonly SendBatch _requests;
    private readonly ReceiveBatch _responses;
    private readonly LatencyHistogram _unmeasuredLatency = new();
    private long _sent;
    private long _completed;

    /// <summary>Opens the socket and connects it to <paramref name="target"/>.</summary>
    /// <param name="target">The responder.</param>
    /// <param name="plan">The run's window and timeout.</param>
    /// <param name="codec">The wire protocol.</param>
    /// <param name="responseBytes">The expected response size; longer responses are received whole up to 64 KiB.</param>
    /// <param name="backend">The socket's backend.</param>
    /// <param name="afXdpBusyPoll">With <see cref="DatagramBackend.AfXdp"/>: spin on the rings rather than sleep in poll(2).</param>
    public RrConnection(IPEndPoint target, RrPlan plan, IRrCodec codec, int responseBytes, DatagramBackend backend = DatagramBackend.Auto, bool afXdpBusyPoll = false)
    {
        _plan = plan;
        _codec = codec;
        _socket = new DatagramSocket(Cli.BackendOption.WithBusyPoll(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(backend == DatagramBackend.AfXdp ? SourceFor(target) : target.AddressFamily == AddressFamily.InterNetworkV6 ? IPAddress.IPv6Any : IPAddress.Any, 0),
            ReceiveBufferSize = 4 << 20,
            Backend = backend,
        }, afXdpBusyPoll));
        _socket.Connect(target);
        _requests = new SendBatch(BatchSize, codec.RequestBytes);

        // The arena is reused without clearing and the codecs write only the header: zero every request slot once,
        // so the bytes past a header never carry old data (requests are all one size, so the slots never move).
        while (_requests.TryAdd(codec.RequestBytes, DatagramAddress.None, out var slot))
        {
            slot.Clear();
        }

        _requests.Clear();

        // Room for twice the expected response (at least 2 KiB), so a responder that answers with more than
        // asked is seen whole rather than cut, without 64 x 64 KiB of pinned buffers per connection.
        _responses = new ReceiveBatch(BatchSize, Math.Clamp(2 * responseBytes, 2_048, ReceiveBatch.DefaultBufferSize));
    }

    /// <summary>
    /// The address the kernel's route to <paramref name="target"/> leaves from: an AF_XDP socket must be bound to an
    /// interface's own address, where a wildcard bind names no interface. A connected UDP socket learns it without
    /// sending anything.
    /// </summary>
    internal static IPAddress SourceFor(IPEndPoint target)
    {
        using var probe = new Socket(target.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        probe.Connect(target);
        return ((IPEndPoint)probe.LocalEndPoint!).Address;
    }

    /// <summary>Requests per send and responses per receive, at most: the library's default batch.</summary>
    internal const int BatchSize = SendBatch.DefaultCapacity;

    /// <summary>Latencies of responses in the measured window.</summary>
    public LatencyHistogram Latency { get; } = new();

    /// <summary>Requests sent in all.</summary>
    public long Sent => Volatile.Read(ref _sent);

    /// <summary>Responses received in all.</summary>
    public long Completed => Volatile.Read(ref _completed);

    /// <summary>Requests sent whose intended send time fell in the measured window (fixed rate).</summary>
    public long SentInWindow { get; private set; }

    /// <summary>Responses counted in the measured window.</summary>
    public long CompletedInWindow { get; private set; }

    /// <summary>Requests unanswered within the timeout (closed loop: then sent again).</summary>
    public long Lost { get; private set; }

    /// <summary>Responses to requests already given up on, or duplicates.</summary>
    public long Late { get; private set; }

    /// <summary>Datagrams that were not valid responses (or arrived cut).</summary>
    public long Malformed { get; private set; }

    /// <summary>ICMP errors (nothing listening at the target), as the socket counted them on receive and send.</summary>
    public long Refused => _socket.GetStatistics().IcmpErrors;

    /// <summary>The backend the client socket reports it uses.</summary>
    public DatagramBackend Backend => _socket.Backend;

    /// <summary>The socket's counters: send and receive calls, for requests per call.</summary>
    public DatagramSocketStatistics Statistics => _socket.GetStatistics();

    /// <summary>Whether the receiving thread's last run took responses on its own io_uring ring (false on a shared ring or another backend).</summary>
    public bool ReceivedOnOwnRing { get; private set; }

    /// <summary>
    /// Keeps <paramref name="inFlight"/> requests outstanding until the window ends. This thread alone receives, so it
    /// claims the socket: on io_uring its receives then run on this thread's own ring instead of a shared engine
    /// thread, whose extra wake-up per response waited for a CPU behind other work (at 16 in flight under five busy
    /// loops on two cores: 10,000 requests/s with p90 4.1 ms, one 4 ms scheduler tick, against 38,000 and 99 us).
    /// </summary>
    public void RunClosedLoop(int inFlight)
    {
        using var claim = _socket.ClaimReceivesForThisThread();
        ReceivedOnOwnRing = claim.OwnRing;
        KeepInFlight(inFlight);
    }

    private void KeepInFlight(int inFlight)
    {
        var slotSequence = new ulong[inFlight];
        var slotSentAt = new long[inFlight];

        // Answers go back in quarters of the window, not as one batch: a whole window sent at once leaves the
        // two ends taking turns, each asleep while the other works (one cross-core wake-up, tens of us, per
        // turn); four groups in flight keep both busy. Measured here at 16 in flight: 190 k requests/s with
        // whole batches, 296 k with quarters, 209 k one request per call (docs/benchmarks.md).
        var flushEvery = Math.Max(1, inFlight / 4);
        ulong next = 0;
        var now = MonotonicClock.NowNanoseconds();
        for (var slot = 0; slot < inFlight; slot++)
        {
            Queue(slot, ref next, slotSequence, slotSentAt, now);
        }

        Flush();
        var lastExpiryCheck = now;
        while (true)
        {
            now = MonotonicClock.NowNanoseconds();
            if (_plan.HasEnded(now))
            {
                return;
            }

            if (now - lastExpiryCheck > _plan.TimeoutNanoseconds / 4)
            {
                lastExpiryCheck = now;
                for (var slot = 0; slot < inFlight; slot++)
                {
                    if (now - slotSentAt[slot] > _plan.TimeoutNanoseconds)
                    {
                        Lost++;
                        Queue(slot, ref next, slotSequence, slotSentAt, now);
                    }
                }
            }

            if (_socket.Receive(_responses, ReceiveTimeout) > 0)
            {
                // One clock read per batch: every response in it arrived by now.
                now = MonotonicClock.NowNanoseconds();
                var inWindow = _plan.IsMeasuring(now);
                foreach (var datagram in _responses)
                {
                    if (!TryRead(datagram, out var header))
                    {
                        continue;
                    }

                    if (header.FlowId >= inFlight || slotSequence[header.FlowId] != header.Sequence)
                    {
                        Late++;
                        continue;
                    }

                    Complete(header, now, inWindow);
                    Queue(header.FlowId, ref next, slotSequence, slotSentAt, now);
                    if (_requests.Count >= flushEvery)
                    {
                        Flush();
                    }
                }
            }

            Flush();
        }
    }

    /// <summary>
    /// Sends <paramref name="perSecond"/> requests a second until the window ends (the pacer thread), in
    /// bursts paced by a <see cref="Pacer"/>, one batch per burst; each request carries its burst's due time,
    /// so latency counts from when the request was meant to leave.
    /// </summary>
    public void RunPacer(double perSecond, long beginNanoseconds)
    {
        var pacer = new Pacer(perSecond, beginNanoseconds, SystemPacerClock.Instance);
        long sent = 0;
        while (true)
        {
            var due = _plan.HasEnded(MonotonicClock.NowNanoseconds()) ? 0 : pacer.WaitForBurst(sent, _plan.MeasureEndNanoseconds);
            if (due == 0)
            {
                return;
            }

            for (var end = sent + due; sent < end; sent++)
            {
                var intended = pacer.DueAt(sent);
                WriteRequest(0, (ulong)sent, intended);
                if (intended >= _plan.WarmupEndNanoseconds)
                {
                    SentInWindow++;
                }
            }

            Flush();
        }
    }

    /// <summary>Receives responses until the window plus the timeout has passed (the receiver thread of fixed rate).</summary>
    public void RunPacedReceiver()
    {
        using var claim = _socket.ClaimReceivesForThisThread();
        ReceivedOnOwnRing = claim.OwnRing;
        ReceiveUntilTheWindowEnds();
    }

    private void ReceiveUntilTheWindowEnds()
    {
        while (!_plan.HasEnded(MonotonicClock.NowNanoseconds(), _plan.TimeoutNanoseconds))
        {
            if (_socket.Receive(_responses, ReceiveTimeout) == 0)
            {
                continue;
            }

            var now = MonotonicClock.NowNanoseconds();
            foreach (var datagram in _responses)
            {
                if (TryRead(datagram, out var header))
                {
                    var intended = header.SendTimeNanoseconds;
                    Complete(header, now, _plan.IsMeasuring(intended));
                }
            }
        }
    }

    /// <summary>After a fixed-rate run: requests of the window never answered.</summary>
    public void SettleFixedRate() => Lost = Math.Max(0, SentInWindow - CompletedInWindow);

    public void Dispose() => _socket.Dispose();

    private void Complete(PayloadHeader header, long now, bool inWindow)
    {
        Volatile.Write(ref _completed, _completed + 1);
        if (inWindow)
        {
            CompletedInWindow++;
            Latency.RecordNanoseconds(now - header.SendTimeNanoseconds);
        }
        else
        {
            // Outside the window the latency goes to a histogram of its own, so the window runs code the JIT has
            // already optimized: recorded only inside it, the histogram's methods were first compiled as the window
            // opened and recompiled through their tiers while it was measured (176 methods, 15 % of the core's
            // samples, at one request in flight with both ends on one core).
            _unmeasuredLatency.RecordNanoseconds(now - header.SendTimeNanoseconds);
        }
    }

    private void Queue(int slot, ref ulong next, ulong[] slotSequence, long[] slotSentAt, long now)
    {
        slotSequence[slot] = next;
        slotSentAt[slot] = now;
        WriteRequest((ushort)slot, next++, now);
    }

    /// <summary>Writes a request into the send batch (sending the batch first when it is full).</summary>
    private void WriteRequest(ushort slot, ulong sequence, long timeNanoseconds)
    {
        if (!_requests.TryAdd(_codec.RequestBytes, DatagramAddress.None, out var request))
        {
            Flush();
            _requests.TryAdd(_codec.RequestBytes, DatagramAddress.None, out request);
        }

        _codec.WriteRequest(request, slot, sequence, timeNanoseconds);
    }

    /// <summary>Sends the queued requests in one call; a refused send is counted by the socket (see <see cref="Refused"/>).</summary>
    private void Flush()
    {
        if (_requests.Count == 0)
        {
            return;
        }

        try
        {
            var accepted = _socket.Send(_requests);
            Volatile.Write(ref _sent, _sent + accepted);
        }
        finally
        {
            _requests.Clear();
        }
    }

    private bool TryRead(ReceivedDatagram datagram, out PayloadHeader header)
    {
        if (datagram.IsTruncated)
        {
            header = default;
            Malformed++;
            return false;
        }

        switch (_codec.ReadResponse(datagram.Payload, out header))
        {
            case RrResponseKind.Answer:
                return true;
            case RrResponseKind.Unknown:
                Late++;
                return false;
            default:
                Malformed++;
                return false;
        }
    }
}
