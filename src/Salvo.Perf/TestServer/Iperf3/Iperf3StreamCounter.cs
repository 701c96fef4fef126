using Salvo.Perf.Protocol;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// Counts one iperf3 stream: datagrams, bytes, loss, reordering and RFC 3550 jitter from iperf3's header (counter
/// from 1, wall-clock send time). One thread records; any thread may read <see cref="Counts"/> (racy while datagrams
/// arrive, exact once recording has stopped).
/// </summary>
internal sealed class Iperf3StreamCounter(int id, bool counters64)
{
    private readonly SequenceTracker _tracker = new();
    private long _bytes;
    private long _malformed;

    /// <summary>iperf3's stream id.</summary>
    public int Id { get; } = id;

    /// <summary>The counts so far.</summary>
    public Iperf3StreamCounts Counts => new(_tracker.Received, Volatile.Read(ref _bytes), _tracker.Lost, _tracker.Highest + 1, _tracker.OutOfOrder,
        _tracker.Duplicates, Volatile.Read(ref _malformed), _tracker.JitterNanoseconds);

    /// <summary>Counts one received datagram that arrived at <paramref name="nowNanoseconds"/> (monotonic).</summary>
    public void Record(ReadOnlySpan<byte> payload, bool truncated, long nowNanoseconds)
    {
        if (truncated || !Iperf3Datagram.TryReadHeader(payload, counters64, out var sentMicroseconds, out var counter))
        {
            // A late connect datagram (the client resends it when the reply is slow) is not data.
            if (!Iperf3Datagram.IsConnectMessage(payload))
            {
                Volatile.Write(ref _malformed, _malformed + 1);
            }

            return;
        }

        _tracker.Record(counter - 1, sentMicroseconds * 1000, nowNanoseconds);
        Volatile.Write(ref _bytes, _bytes + payload.Length);
    }
}

/// <summary>What one iperf3 stream's receiver counted.</summary>
/// <param name="Datagrams">Valid datagrams received, duplicates included.</param>
/// <param name="Bytes">Their payload bytes.</param>
/// <param name="Lost">Counters up to the highest seen that never arrived.</param>
/// <param name="Highest">The highest counter seen (the datagrams known to be sent).</param>
/// <param name="OutOfOrder">Arrived after a later one.</param>
/// <param name="Duplicates">Arrived twice.</param>
/// <param name="Malformed">Too short for the header, or counter 0.</param>
/// <param name="JitterNanoseconds">RFC 3550 jitter.</param>
internal readonly record struct Iperf3StreamCounts(long Datagrams, long Bytes, long Lost, long Highest, long OutOfOrder, long Duplicates, long Malformed, double JitterNanoseconds)
{
    /// <summary>Lost against the sender's own count, when it is known: the tail after the highest counter counts too.</summary>
    public long LostAgainst(long sent) => Math.Max(0, Math.Max(sent, Highest) - (Datagrams - Duplicates));
}
