using System.Diagnostics;
using Salvo.Perf.Protocol;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// The streams of a test in which the stock client sends, counted on the server's own receive workers: every
/// stream's datagrams arrive on the shared port and are matched to their stream by source address, so one thread
/// per worker serves all streams, as iperf3's own server reads every stream on its one thread. A thread per stream
/// woke for one or two datagrams at a time: with -P 4 at 500 Mbit/s each, 59 % of the server's samples were in the
/// scheduler's task switch (perf record) and the server took a whole core for 1 Gbit/s.
/// </summary>
/// <remarks>
/// A stream's datagrams always reach the same worker (SO_REUSEPORT hashes the four-tuple), so each counter has one
/// writer, as <see cref="Iperf3StreamCounter"/> requires.
/// </remarks>
internal sealed class Iperf3EngineStreams : IDisposable
{
    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(10);
    private static readonly TimeSpan Quiet = TimeSpan.FromMilliseconds(250);

    private readonly IReceiveEngine _engine;
    private readonly Dictionary<DatagramAddress, Iperf3StreamCounter> _bySource;

    /// <summary>Counts the streams from <paramref name="sources"/> (in iperf3's stream order) from now on.</summary>
    public Iperf3EngineStreams(IReceiveEngine engine, IReadOnlyList<DatagramAddress> sources, bool counters64)
    {
        _engine = engine;
        Streams = sources.Select((_, i) => new Iperf3StreamCounter(Iperf3Datagram.StreamId(i), counters64)).ToArray();
        _bySource = sources.Select((source, i) => (source, Streams[i])).ToDictionary(p => p.source, p => p.Item2);
        engine.UnrecognisedDatagrams = Record;
    }

    /// <summary>Each stream's counts, in iperf3's stream order.</summary>
    public IReadOnlyList<Iperf3StreamCounter> Streams { get; }

    /// <summary>
    /// Waits until every datagram the client says it sent on each stream (<paramref name="sentPerStream"/>) is
    /// counted, or until none has arrived for <see cref="Quiet"/> (the rest is lost), at most <paramref name="limit"/>;
    /// then stops counting. The workers may still be reading the tail when TEST_END comes: on two busy cores it
    /// was 60 ms of datagrams, and a pause of the worker's thread looks like silence, so the sender's own count
    /// decides where it can.
    /// </summary>
    public void StopWhenCaughtUp(IReadOnlyList<long> sentPerStream, TimeSpan limit)
    {
        var clock = Stopwatch.StartNew();
        var seen = Total();
        var quietSince = clock.Elapsed;
        while (!CaughtUp(sentPerStream) && clock.Elapsed < limit)
        {
            Thread.Sleep(Poll);
            var now = Total();
            if (now != seen)
            {
                seen = now;
                quietSince = clock.Elapsed;
            }
            else if (clock.Elapsed - quietSince >= Quiet)
            {
                break;
            }
        }

        Dispose();
    }

    /// <summary>Stops counting.</summary>
    public void Dispose()
    {
        if (_engine.UnrecognisedDatagrams == Record)
        {
            _engine.UnrecognisedDatagrams = null;
        }
    }

    private bool CaughtUp(IReadOnlyList<long> sentPerStream) =>
        Streams.Select((s, i) => (s.Counts, Sent: i < sentPerStream.Count ? sentPerStream[i] : 0)).All(p => p.Counts.LostAgainst(p.Sent) == 0);

    private long Total() => Streams.Select(s => s.Counts).Sum(c => c.Datagrams + c.Malformed);

    private bool Record(ReadOnlySpan<byte> payload, DatagramAddress source, bool truncated)
    {
        if (!_bySource.TryGetValue(source, out var stream))
        {
            return false;
        }

        stream.Record(payload, truncated, MonotonicClock.NowNanoseconds());
        return true;
    }
}
