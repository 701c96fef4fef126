namespace Salvo.Tunnel.Protocol;

/// <summary>
/// Handshake messages waiting for the handshake thread, so that the thread that receives data never waits behind
/// their Diffie-Hellman (about 1.3 ms of X25519 each here, docs/benchmarks.md): wireguard-go keeps its handshake
/// queue apart from its data queues for the same reason (device/receive.go). A fixed ring of slots of the largest
/// handshake message (an initiation, 148 bytes) with each message's source, made once: putting a message in copies it
/// and allocates nothing. A full queue refuses the message at once; the receiving thread drops it and goes on.
/// </summary>
internal sealed class HandshakeQueue
{
    /// <summary>wireguard-go's QueueHandshakeSize (device/queueconstants.go): 1,024 messages, about 150 KiB of slots here.</summary>
    public const int DefaultCapacity = 1024;

    private readonly object _sync = new();
    private readonly byte[] _slots;
    private readonly int[] _lengths;
    private readonly DatagramAddress[] _sources;
    private int _head;
    private int _count;
    private bool _consumerWaits;

    /// <param name="capacity">Messages the queue holds at most. Defaults to <see cref="DefaultCapacity"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">The capacity is less than 1.</exception>
    public HandshakeQueue(int capacity = DefaultCapacity)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        Capacity = capacity;
        _slots = new byte[capacity * MessageLayout.InitiationSize];
        _lengths = new int[capacity];
        _sources = new DatagramAddress[capacity];
    }

    public int Capacity { get; }

    /// <summary>Messages waiting now (read without the lock: a load decision needs no exact figure).</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>
    /// Whether the queue is deep enough that handshakes should need a cookie: an eighth full, wireguard-go's threshold
    /// (device/device.go, IsUnderLoad: the handshake queue at QueueHandshakeSize / 8).
    /// </summary>
    public bool IsLoaded => Count >= Math.Max(1, Capacity / 8);

    /// <summary>Copies <paramref name="message"/> and its source into a free slot; false when the queue is full or the message is longer than a slot.</summary>
    public bool TryAdd(ReadOnlySpan<byte> message, DatagramAddress source)
    {
        if (message.Length > MessageLayout.InitiationSize)
        {
            return false;
        }

        lock (_sync)
        {
            if (_count == Capacity)
            {
                return false;
            }

            var slot = (_head + _count) % Capacity;
            message.CopyTo(_slots.AsSpan(slot * MessageLayout.InitiationSize));
            _lengths[slot] = message.Length;
            _sources[slot] = source;
            Volatile.Write(ref _count, _count + 1);
            if (_consumerWaits)
            {
                Monitor.Pulse(_sync);
            }

            return true;
        }
    }

    /// <summary>Takes the oldest message into <paramref name="destination"/> (at least 148 bytes); 0 when none waits.</summary>
    public int TryTake(Span<byte> destination, out DatagramAddress source)
    {
        lock (_sync)
        {
            if (_count == 0)
            {
                source = default;
                return 0;
            }

            var length = _lengths[_head];
            _slots.AsSpan(_head * MessageLayout.InitiationSize, length).CopyTo(destination);
            source = _sources[_head];
            _head = (_head + 1) % Capacity;
            Volatile.Write(ref _count, _count - 1);
            return length;
        }
    }

    /// <summary>Waits until a message is queued or <paramref name="timeout"/> passes; true when one waits.</summary>
    public bool WaitForMessage(TimeSpan timeout)
    {
        lock (_sync)
        {
            if (_count > 0)
            {
                return true;
            }

            _consumerWaits = true;
            try
            {
                Monitor.Wait(_sync, timeout);
            }
            finally
            {
                _consumerWaits = false;
            }

            return _count > 0;
        }
    }
}
