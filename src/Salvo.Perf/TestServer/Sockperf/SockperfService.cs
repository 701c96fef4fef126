using Salvo.Perf.Cli;

namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>
/// The sockperf side of <c>salvo server</c>: answers stock sockperf clients on the server's UDP workers
/// and TCP connections, and keeps their counts (one <see cref="SockperfCounters"/> per UDP worker and per
/// open connection, so no two threads write the same counter).
/// </summary>
internal sealed class SockperfService
{
    private readonly SockperfCounters[] _udpWorkers;
    private readonly HashSet<SockperfCounters> _openConnections = [];
    private readonly Lock _lock = new();
    private SockperfTotals _closedConnections;
    private long _connections;
    private long _refused;
    private long _closedIdle;
    private ThrottledNote? _refusalNote;

    /// <param name="udpWorkers">The server's UDP receive workers, one counter set each.</param>
    /// <param name="maxConnections">TCP connections served at once; one more is refused.</param>
    /// <param name="idleTimeout">A TCP connection with nothing received for this long is closed; zero = never.</param>
    public SockperfService(int udpWorkers, int maxConnections = 1024, TimeSpan idleTimeout = default)
    {
        _udpWorkers = Enumerable.Range(0, udpWorkers).Select(_ => new SockperfCounters()).ToArray();
        MaxConnections = maxConnections;
        IdleTimeout = idleTimeout;
    }

    /// <summary>TCP connections served at once (--sockperf-max-connections).</summary>
    public int MaxConnections { get; }

    /// <summary>How long a TCP connection may send nothing before it is closed; zero = never (--sockperf-idle-timeout).</summary>
    public TimeSpan IdleTimeout { get; }

    /// <summary>TCP connections refused because <see cref="MaxConnections"/> were open.</summary>
    public long Refused => Interlocked.Read(ref _refused);

    /// <summary>TCP connections closed after <see cref="IdleTimeout"/> without a byte.</summary>
    public long ClosedIdle => Interlocked.Read(ref _closedIdle);

    /// <summary>Where logs go (connections opened and closed, bad input).</summary>
    public required CliConsole Console { get; init; }

    /// <summary>Where refusals over the cap are logged: at most one line a second, a flood of connections must not flood the log.</summary>
    public ThrottledNote RefusalNote => LazyInitializer.EnsureInitialized(ref _refusalNote, () => new ThrottledNote(Console, TimeSpan.FromSeconds(1)));

    /// <summary>TCP connections open now.</summary>
    public int OpenConnections
    {
        get
        {
            lock (_lock)
            {
                return _openConnections.Count;
            }
        }
    }

    /// <summary>TCP connections accepted in all.</summary>
    public long Connections => Interlocked.Read(ref _connections);

    /// <summary>
    /// Handles a datagram that is not Salvo's: answers it into <paramref name="replies"/> when it is a
    /// sockperf pong request. False when it does not even have a sockperf header (the caller counts it
    /// as before). <paramref name="replies"/> must have room for one more datagram.
    /// </summary>
    public bool TryAnswerDatagram(int worker, in ReceivedDatagram datagram, SendBatch replies)
    {
        var payload = datagram.Payload;
        if (SockperfHeader.TryRead(payload, out var header) != SockperfHeaderError.None)
        {
            return false;
        }

        var verdict = datagram.IsTruncated ? SockperfVerdict.Malformed : SockperfServerRules.DecideDatagram(header, payload.Length);
        if (verdict == SockperfVerdict.Reply && replies.TryAdd(payload.Length, datagram.Source, out var reply))
        {
            SockperfServerRules.WriteReply(payload, reply);
        }

        _udpWorkers[worker].Record(verdict);
        return true;
    }

    /// <summary>
    /// Counters for a new TCP connection, to give back with <see cref="CloseConnection"/>; null (and counted as
    /// refused) when <see cref="MaxConnections"/> are open already.
    /// </summary>
    public SockperfCounters? TryOpenConnection()
    {
        var counters = new SockperfCounters();
        lock (_lock)
        {
            if (_openConnections.Count >= MaxConnections)
            {
                Interlocked.Increment(ref _refused);
                return null;
            }

            _openConnections.Add(counters);
        }

        Interlocked.Increment(ref _connections);
        return counters;
    }

    /// <summary>Counts a connection closed for sending nothing for <see cref="IdleTimeout"/>.</summary>
    public void CountIdleClose() => Interlocked.Increment(ref _closedIdle);

    /// <summary>Folds a closed connection's counts into the totals.</summary>
    public void CloseConnection(SockperfCounters counters)
    {
        lock (_lock)
        {
            if (_openConnections.Remove(counters))
            {
                _closedConnections += counters.Read();
            }
        }
    }

    /// <summary>Everything counted so far, UDP and TCP.</summary>
    public SockperfTotals Snapshot()
    {
        var totals = default(SockperfTotals);
        foreach (var worker in _udpWorkers)
        {
            totals += worker.Read();
        }

        lock (_lock)
        {
            totals += _closedConnections;
            foreach (var connection in _openConnections)
            {
                totals += connection.Read();
            }
        }

        return totals;
    }
}
