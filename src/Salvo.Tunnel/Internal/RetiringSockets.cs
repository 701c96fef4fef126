namespace Salvo.Tunnel;

/// <summary>
/// UDP sockets a new listen port replaced, kept open until the device's loops have left them, and taken back when the
/// port they hold is asked for again before then. Binding first and retiring later is what keeps a port in use by
/// someone else from changing anything; without the taking back, `wg set listen-port` to the port left half a second
/// ago failed with EADDRINUSE (145 of 300 quick flips between two ports, in the lab), where wireguard-go, which closes
/// the old socket before it binds, never refuses.
/// </summary>
internal sealed class RetiringSockets(TimeSpan delay) : IDisposable
{
    private readonly Lock _gate = new();
    private readonly List<Entry> _entries = [];
    private bool _disposed;

    /// <summary>Sockets waiting to be closed, for tests.</summary>
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

    /// <summary>Closes <paramref name="socket"/> (marked <paramref name="mark"/>) after the delay, unless it is taken back first.</summary>
    public void Retire(DatagramSocket socket, uint mark)
    {
        var entry = new Entry(socket, mark);
        lock (_gate)
        {
            if (_disposed)
            {
                socket.Dispose();
                return;
            }

            _entries.Add(entry);
        }

        _ = Task.Delay(delay).ContinueWith(_ => Expire(entry), TaskScheduler.Default);
    }

    /// <summary>Takes back the retiring socket bound to <paramref name="port"/>; false when none holds it (or it is 0, any port).</summary>
    public bool TryTake(int port, out DatagramSocket? socket, out uint mark)
    {
        lock (_gate)
        {
            var index = port == 0 ? -1 : _entries.FindIndex(entry => entry.Socket.LocalEndPoint.Port == port);
            if (index < 0)
            {
                socket = null;
                mark = 0;
                return false;
            }

            (socket, mark) = (_entries[index].Socket, _entries[index].Mark);
            _entries.RemoveAt(index);
            return true;
        }
    }

    /// <summary>Closes every retiring socket now (the device's loops have stopped).</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _disposed = true;
            foreach (var entry in _entries)
            {
                entry.Socket.Dispose();
            }

            _entries.Clear();
        }
    }

    private void Expire(Entry entry)
    {
        lock (_gate)
        {
            if (!_entries.Remove(entry))
            {
                return;
            }
        }

        entry.Socket.Dispose();
    }

    /// <summary>
    /// One retirement, equal only to itself: a socket taken back and retired again is a new entry, and the earlier
    /// retirement's expiry must not find it. As a record (equal by socket and mark) it did, and closed the socket up to
    /// half a second early; flipping back to its port then found nothing to take back, and the bind failed with
    /// EADDRINUSE while a loop still held the old descriptor in a receive (flip 46 of 100, under load).
    /// </summary>
    private sealed class Entry(DatagramSocket socket, uint mark)
    {
        public DatagramSocket Socket { get; } = socket;

        public uint Mark { get; } = mark;
    }
}
