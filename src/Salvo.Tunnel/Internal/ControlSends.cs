namespace Salvo.Tunnel;

/// <summary>
/// Handshake messages and cookie replies on their own batch, sent with <see cref="DatagramSocket.TrySend"/> before the
/// data: they never wait for room in the socket, so a full send buffer cannot stall the loop that answers handshakes,
/// and what the socket cannot take is dropped and counted (<see cref="TunnelDropReason.ControlSendDropped"/>).
/// </summary>
/// <remarks>
/// Found in the lab: a flood of initiations from forged on-link addresses made the tunnel send a cookie reply to each;
/// every reply waited in its neighbour entry's queue for ARP (unres_qlen_bytes, 3 s until the entry failed) and was
/// charged to the socket's send buffer all that time, until the buffer was full and the data sends behind it stopped.
/// Expendable replies are therefore not sent while such datagrams hold a quarter of the buffer (SIOCOUTQ); the engine's
/// cookie budget keeps them below that in the first place. The socket is asked for at each send, not kept: a new
/// listen port (wg set listen-port, wg setconf) replaces the device's socket and closes the old one.
/// </remarks>
internal sealed class ControlSends(Func<DatagramSocket> socket, TunnelCounters counters)
{
    /// <summary>Room for a batch's worth of replies (the inbound loop receives 32 buffers at a time) before a flush.</summary>
    private const int Capacity = 64;

    private readonly SendBatch _batch = new(Capacity, Protocol.MessageLayout.InitiationSize);
    private readonly byte[] _discard = new byte[Protocol.MessageLayout.InitiationSize];
    private bool? _crowded;

    /// <summary>Reserves a control datagram; a span that goes nowhere when it is dropped at once.</summary>
    public Span<byte> Add(int length, DatagramAddress destination, bool expendable)
    {
        if (expendable && IsCrowded())
        {
            counters.Drop(TunnelDropReason.ControlSendDropped);
            return _discard.AsSpan(0, length);
        }

        if (!_batch.TryAdd(length, destination, out var payload))
        {
            Flush();
            _batch.TryAdd(length, destination, out payload);
        }

        return payload;
    }

    /// <summary>Sends what the socket takes now; the rest is dropped and counted.</summary>
    public void Flush()
    {
        _crowded = null;
        if (_batch.Count == 0)
        {
            return;
        }

        socket().TrySend(_batch);
        if (_batch.FailedCount > 0)
        {
            counters.Drop(TunnelDropReason.ControlSendDropped, _batch.FailedCount);
        }

        _batch.Clear();
    }

    /// <summary>Forgets what is pending without sending it (after an error, a reservation may never have been written).</summary>
    public void Clear()
    {
        _crowded = null;
        _batch.Clear();
    }

    /// <summary>One SIOCOUTQ per batch: whether sends the kernel still holds take more than a quarter of the buffer.</summary>
    private bool IsCrowded()
    {
        if (_crowded is null)
        {
            var current = socket();
            _crowded = current.QueuedSendBytes > current.SendBufferSize / 4;
        }

        return _crowded.Value;
    }
}
