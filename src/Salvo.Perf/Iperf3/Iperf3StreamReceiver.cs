using System.Diagnostics;
using Salvo.Perf.Protocol;
using Salvo.Perf.Threading;

namespace Salvo.Perf.Iperf3;

/// <summary>
/// Receives one iperf3 stream on its connected socket, on its own thread, in batches: counts datagrams,
/// bytes, loss, reordering and RFC 3550 jitter from iperf3's header (counter from 1, wall-clock send time).
/// </summary>
internal sealed class Iperf3StreamReceiver : IDisposable
{
    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(50);

    private readonly DatagramSocket _socket;
    private readonly bool _counters64;
    private readonly SequenceTracker _tracker = new();
    private readonly Thread _thread;
    private volatile bool _stopWhenIdle;
    private volatile bool _stopped;
    private long _bytes;
    private long _malformed;

    /// <summary>The backend the stream's socket reports it uses.</summary>
    public DatagramBackend Backend => _socket.Backend;

    public Iperf3StreamReceiver(DatagramSocket socket, int id, bool counters64)
    {
        _socket = socket;
        _counters64 = counters64;
        Id = id;
        _thread = new Thread(Run) { Name = $"salvo-iperf3-recv-{id}", IsBackground = true };
    }

    /// <summary>iperf3's stream id.</summary>
    public int Id { get; }

    /// <summary>The counts so far (racy while datagrams arrive; exact after <see cref="StopAllWhenIdle"/>).</summary>
    public Iperf3StreamCounts Counts => new(_tracker.Received, Volatile.Read(ref _bytes), _tracker.Lost, _tracker.Highest + 1, _tracker.OutOfOrder,
        _tracker.Duplicates, Volatile.Read(ref _malformed), _tracker.JitterNanoseconds);

    /// <summary>Starts receiving.</summary>
    public void Start() => _thread.Start();

    /// <summary>
    /// Has every stream read what is still queued and stop at its first quiet <see cref="Poll"/>, all within one
    /// <paramref name="limit"/>: every stream is told first, so with -P 128 they drain together, not in turn.
    /// </summary>
    public static void StopAllWhenIdle(IReadOnlyList<Iperf3StreamReceiver> receivers, TimeSpan limit)
    {
        foreach (var receiver in receivers)
        {
            receiver._stopWhenIdle = true;
        }

        var deadline = Stopwatch.GetTimestamp() + (long)(limit.TotalSeconds * Stopwatch.Frequency);
        var busy = receivers.Where(r => !r._thread.Join(TimeSpan.FromTicks(Math.Max(0, Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), deadline).Ticks)))).ToArray();
        foreach (var receiver in busy)
        {
            receiver._stopped = true;
        }

        foreach (var receiver in busy)
        {
            receiver._thread.Join(Poll * 4);
        }
    }

    public void Dispose()
    {
        _stopped = true;
        _thread.JoinIfStarted(Poll * 4);
        _socket.Dispose();
    }

    private void Run()
    {
        var batch = new ReceiveBatch(64);
        try
        {
            while (!_stopped)
            {
                if (_socket.Receive(batch, Poll) == 0)
                {
                    if (_stopWhenIdle)
                    {
                        return;
                    }

                    continue;
                }

                var now = MonotonicClock.NowNanoseconds();
                foreach (var datagram in batch)
                {
                    if (datagram.IsTruncated || !Iperf3Datagram.TryReadHeader(datagram.Payload, _counters64, out var sentMicroseconds, out var counter))
                    {
                        // A late connect datagram (the client resends it when the reply is slow) is not data.
                        if (!Iperf3Datagram.IsConnectMessage(datagram.Payload))
                        {
                            Volatile.Write(ref _malformed, _malformed + 1);
                        }

                        continue;
                    }

                    _tracker.Record(counter - 1, sentMicroseconds * 1000, now);
                    Volatile.Write(ref _bytes, _bytes + datagram.Length);
                }
            }
        }
        catch (ObjectDisposedException)
        {
            // Disposed: the test was cut short.
        }

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
