using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel.Paths;

/// <summary>
/// The accepted TCP fallback connections that have not yet carried an authenticated message: anyone can open one, so
/// they are held to a budget that a flood cannot turn against a real peer. Each source (an IPv4 address or an IPv6
/// /64) may hold <see cref="PerSource"/> at once; past <see cref="Total"/> the oldest of the source holding the most
/// gives way to the newest. So a peer's new connection is always admitted, and a flood pushes it out only from more
/// than <see cref="Total"/> sources at once (the peer's source holds one, every flooding source would have to hold one
/// too) or, from the peer's own source, within the moment before its first message. Each may stay
/// <see cref="Deadline"/> at most. Thread-safe;
/// times are milliseconds of one monotonic clock (<see cref="Environment.TickCount64"/> in the device).
/// </summary>
internal sealed class UnauthenticatedConnections<T>(int perSource, int total, TimeSpan deadline)
    where T : class
{
    /// <summary>
    /// The default wait for an authenticated message. The dialing end sends at once (it dialed because it had a message
    /// to carry); under load its first initiation is answered with a cookie and the next, with MAC2, follows
    /// REKEY_TIMEOUT (5 s) plus up to 333 ms of jitter later; 8 s covers that and one retransmitted segment (TCP's
    /// first RTO is 1 s, RFC 6298). Junk never extends it.
    /// </summary>
    public static readonly TimeSpan DefaultDeadline = TimeSpan.FromSeconds(8);

    /// <summary>
    /// The default per-source budget: a few peers behind one NAT address falling back at once, each dialing while the
    /// other end dials too (two connections a peer).
    /// </summary>
    public const int DefaultPerSource = 8;

    /// <summary>
    /// The default total. An idle connection holds no buffer (zero-byte reads), about 2 KB of socket and pipe state,
    /// so 256 cost well under a megabyte while a flood needs 256 new connections within one round trip to push out a
    /// peer's.
    /// </summary>
    public const int DefaultTotal = 256;

    private readonly object _gate = new();
    private readonly LinkedList<Entry> _byAge = new();
    private readonly Dictionary<T, LinkedListNode<Entry>> _entries = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<UInt128, int> _perSourceCount = [];
    private readonly long _deadlineMs = (long)deadline.TotalMilliseconds;

    public int PerSource { get; } = perSource;

    public int Total { get; } = total;

    public TimeSpan Deadline { get; } = deadline;

    /// <summary>Connections waiting now.</summary>
    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _entries.Count;
            }
        }
    }

    /// <summary>
    /// Takes <paramref name="connection"/> from <paramref name="source"/> in at <paramref name="now"/>; false when its
    /// source already holds <see cref="PerSource"/> (the caller closes it). <paramref name="evicted"/> is the oldest
    /// waiting connection, taken out to make room (the caller closes it), or null.
    /// </summary>
    public bool TryAdmit(T connection, DatagramAddress source, long now, out T? evicted)
    {
        evicted = null;
        var key = HandshakeRateLimiter.KeyOf(source);
        lock (_gate)
        {
            _perSourceCount.TryGetValue(key, out var count);
            if (count >= PerSource)
            {
                return false;
            }

            if (_entries.Count >= Total)
            {
                evicted = OldestOfTheLargestSourceLocked();
                RemoveLocked(evicted);
            }

            _perSourceCount[key] = count + 1;
            _entries[connection] = _byAge.AddLast(new Entry(connection, key, now));
            return true;
        }
    }

    /// <summary>
    /// Takes <paramref name="connection"/> out: it carried an authenticated message, or it closed. False when it was
    /// not waiting (a connection this end dialed, or one already taken out).
    /// </summary>
    public bool Remove(T connection)
    {
        lock (_gate)
        {
            return RemoveLocked(connection);
        }
    }

    /// <summary>Takes out every connection admitted <see cref="Deadline"/> or more before <paramref name="now"/> and adds it to <paramref name="expired"/>.</summary>
    public void TakeExpired(long now, List<T> expired)
    {
        lock (_gate)
        {
            // Oldest first: the walk stops at the first with time left. Callers read the clock just before taking the
            // lock, so two admissions may be out of order by microseconds; the later one then waits one more sweep.
            while (_byAge.First is { } first && now - first.Value.AdmittedAt >= _deadlineMs)
            {
                RemoveLocked(first.Value.Connection);
                expired.Add(first.Value.Connection);
            }
        }
    }

    /// <summary>A linear walk, only when full: at most <see cref="Total"/> sources and as many connections.</summary>
    private T OldestOfTheLargestSourceLocked()
    {
        var largest = 0;
        foreach (var count in _perSourceCount.Values)
        {
            largest = Math.Max(largest, count);
        }

        foreach (var entry in _byAge)
        {
            if (_perSourceCount[entry.Source] == largest)
            {
                return entry.Connection;
            }
        }

        throw new InvalidOperationException("The counts per source do not match the connections.");
    }

    private bool RemoveLocked(T connection)
    {
        if (!_entries.Remove(connection, out var node))
        {
            return false;
        }

        _byAge.Remove(node);
        var key = node.Value.Source;
        if (--_perSourceCount[key] == 0)
        {
            _perSourceCount.Remove(key);
        }

        return true;
    }

    private readonly record struct Entry(T Connection, UInt128 Source, long AdmittedAt);
}
