using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Measurement;
using Salvo.Perf.Pacing;
using Salvo.Perf.Protocol;

namespace Salvo.Perf.Rr;

/// <summary>
/// One client socket of the rr test, connected to the responder. Closed loop: keeps a fixed number of
/// requests in flight, sending the next when one is answered. Fixed rate: a pacer sends on a schedule and
/// a receiver records latency from each request's intended send time, so a stall is charged to every
/// request it delayed (no coordinated omission).
/// </summary>
internal sealed class RrConnection : IDisposable
{
    private const int ReceiveTimeoutMilliseconds = 10;

    private readonly Socket _socket;
    private readonly RrPlan _plan;
    private readonly IRrCodec _codec;
    private readonly byte[] _request;
    private readonly byte[] _response = GC.AllocateUninitializedArray<byte>(65_536, pinned: true);
    private long _sent;
    private long _completed;

    public RrConnection(IPEndPoint target, RrPlan plan, IRrCodec codec)
    {
        _plan = plan;
        _codec = codec;
        _socket = new Socket(target.AddressFamily, SocketType.Dgram, ProtocolType.Udp)
        {
            ReceiveTimeout = ReceiveTimeoutMilliseconds,
            ReceiveBufferSize = 4 << 20,
        };
        _socket.Connect(target);
        _request = GC.AllocateArray<byte>(codec.RequestBytes, pinned: true);
    }

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

    /// <summary>Datagrams that were not valid responses.</summary>
    public long Malformed { get; private set; }

    /// <summary>ICMP errors (nothing listening at the target).</summary>
    public long Refused { get; private set; }

    /// <summary>Keeps <paramref name="inFlight"/> requests outstanding until the window ends.</summary>
    public void RunClosedLoop(int inFlight)
    {
        var slotSequence = new ulong[inFlight];
        var slotSentAt = new long[inFlight];
        ulong next = 0;
        for (var slot = 0; slot < inFlight; slot++)
        {
            Send(slot, ref next, slotSequence, slotSentAt, MonotonicClock.NowNanoseconds());
        }

        var lastExpiryCheck = MonotonicClock.NowNanoseconds();
        while (true)
        {
            var now = MonotonicClock.NowNanoseconds();
            if (now >= _plan.MeasureEndNanoseconds)
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
                        Send(slot, ref next, slotSequence, slotSentAt, now);
                    }
                }
            }

            if (!TryReceive(out var header))
            {
                continue;
            }

            now = MonotonicClock.NowNanoseconds();
            if (header.FlowId >= inFlight || slotSequence[header.FlowId] != header.Sequence)
            {
                Late++;
                continue;
            }

            Complete(header, now, now >= _plan.WarmupEndNanoseconds && now < _plan.MeasureEndNanoseconds);
            Send(header.FlowId, ref next, slotSequence, slotSentAt, now);
        }
    }

    /// <summary>
    /// Sends <paramref name="perSecond"/> requests a second until the window ends (the pacer thread), in
    /// bursts paced by a <see cref="Pacer"/>; each request carries its burst's due time, so latency counts
    /// from when the request was meant to leave.
    /// </summary>
    public void RunPacer(double perSecond, long beginNanoseconds)
    {
        var pacer = new Pacer(perSecond, beginNanoseconds, SystemPacerClock.Instance);
        long sent = 0;
        while (true)
        {
            var due = pacer.WaitForBurst(sent, _plan.MeasureEndNanoseconds);
            if (due == 0)
            {
                return;
            }

            for (var end = sent + due; sent < end; sent++)
            {
                var intended = pacer.DueAt(sent);
                _codec.WriteRequest(_request, 0, (ulong)sent, intended);
                TrySend();
                if (intended >= _plan.WarmupEndNanoseconds)
                {
                    SentInWindow++;
                }
            }
        }
    }

    /// <summary>Receives responses until the window plus the timeout has passed (the receiver thread of fixed rate).</summary>
    public void RunPacedReceiver()
    {
        var end = _plan.MeasureEndNanoseconds + _plan.TimeoutNanoseconds;
        while (MonotonicClock.NowNanoseconds() < end)
        {
            if (TryReceive(out var header))
            {
                var intended = header.SendTimeNanoseconds;
                Complete(header, MonotonicClock.NowNanoseconds(), intended >= _plan.WarmupEndNanoseconds && intended < _plan.MeasureEndNanoseconds);
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
    }

    private void Send(int slot, ref ulong next, ulong[] slotSequence, long[] slotSentAt, long now)
    {
        slotSequence[slot] = next;
        slotSentAt[slot] = now;
        _codec.WriteRequest(_request, (ushort)slot, next++, now);
        TrySend();
    }

    private void TrySend()
    {
        try
        {
            _socket.Send(_request);
            Volatile.Write(ref _sent, _sent + 1);
        }
        catch (SocketException e) when (e.SocketErrorCode is SocketError.ConnectionRefused or SocketError.ConnectionReset)
        {
            Refused++;
        }
    }

    private bool TryReceive(out PayloadHeader header)
    {
        header = default;
        int received;
        try
        {
            received = _socket.Receive(_response);
        }
        catch (SocketException e) when (e.SocketErrorCode is SocketError.TimedOut or SocketError.WouldBlock)
        {
            return false;
        }
        catch (SocketException e) when (e.SocketErrorCode is SocketError.ConnectionRefused or SocketError.ConnectionReset)
        {
            Refused++;
            return false;
        }

        switch (_codec.ReadResponse(_response.AsSpan(0, received), out header))
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

/// <summary>What every connection of one rr run does.</summary>
/// <param name="WarmupEndNanoseconds">Start of the measured window (monotonic ns).</param>
/// <param name="MeasureEndNanoseconds">End of the measured window.</param>
/// <param name="TimeoutNanoseconds">When an unanswered request counts as lost.</param>
internal sealed record RrPlan(long WarmupEndNanoseconds, long MeasureEndNanoseconds, long TimeoutNanoseconds);
