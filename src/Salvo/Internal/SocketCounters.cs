namespace Salvo.Internal;

/// <summary>A socket's running counters; updated once per batch, not per datagram.</summary>
internal sealed class SocketCounters
{
    private readonly long[] _malformedByReason = new long[FrameDropCounts.Slots];
    private long _datagramsReceived;
    private long _bytesReceived;
    private long _datagramsSent;
    private long _bytesSent;
    private long _receiveCalls;
    private long _sendCalls;
    private long _truncated;
    private long _icmpErrors;
    private long _sendErrors;
    private long _gsoFallbacks;
    private long _malformedFrames;

    public void OnReceived(int datagrams, long bytes, int truncated)
    {
        Interlocked.Increment(ref _receiveCalls);
        Interlocked.Add(ref _datagramsReceived, datagrams);
        Interlocked.Add(ref _bytesReceived, bytes);
        if (truncated != 0)
        {
            Interlocked.Add(ref _truncated, truncated);
        }
    }

    public void OnSent(int datagrams, long bytes)
    {
        Interlocked.Increment(ref _sendCalls);
        Interlocked.Add(ref _datagramsSent, datagrams);
        Interlocked.Add(ref _bytesSent, bytes);
    }

    public void OnTruncatedByCaller() => Interlocked.Increment(ref _truncated);

    public void OnIcmpError() => Interlocked.Increment(ref _icmpErrors);

    public void OnSendError() => Interlocked.Increment(ref _sendErrors);

    public void OnGsoFallback() => Interlocked.Increment(ref _gsoFallbacks);

    public void OnMalformedFrame(FrameDropReason reason)
    {
        Interlocked.Increment(ref _malformedByReason[(int)reason]);
        Interlocked.Increment(ref _malformedFrames);
    }

    public DatagramSocketStatistics Snapshot() => new(
        Interlocked.Read(ref _datagramsReceived),
        Interlocked.Read(ref _bytesReceived),
        Interlocked.Read(ref _datagramsSent),
        Interlocked.Read(ref _bytesSent),
        Interlocked.Read(ref _receiveCalls),
        Interlocked.Read(ref _sendCalls),
        Interlocked.Read(ref _truncated),
        Interlocked.Read(ref _icmpErrors),
        Interlocked.Read(ref _sendErrors),
        Interlocked.Read(ref _gsoFallbacks))
    {
        MalformedFrames = Interlocked.Read(ref _malformedFrames),
        MalformedFramesByReason = MalformedByReason(),
    };

    /// <summary>A copy of the counts by reason; none (no allocation) while nothing was dropped, as on every backend but AF_XDP.</summary>
    private FrameDropCounts MalformedByReason()
    {
        if (Interlocked.Read(ref _malformedFrames) == 0)
        {
            return default;
        }

        var counts = new long[_malformedByReason.Length];
        for (var i = 0; i < counts.Length; i++)
        {
            counts[i] = Interlocked.Read(ref _malformedByReason[i]);
        }

        return new FrameDropCounts(counts);
    }
}
