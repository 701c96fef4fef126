namespace Salvo.Tunnel;

/// <summary>
/// IP packets read from the TUN device in one round: fixed buffers allocated once, a length per slot, a count.
/// A batch of one is still a batch, so the same code handles one packet and many.
/// </summary>
public sealed class PacketBatch
{
    private readonly byte[] _storage;
    private readonly int[] _lengths;

    /// <summary>Makes <paramref name="capacity"/> slots of <paramref name="bufferSize"/> bytes each.</summary>
    public PacketBatch(int capacity, int bufferSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(bufferSize, 1);
        Capacity = capacity;
        BufferSize = bufferSize;
        _storage = GC.AllocateUninitializedArray<byte>(capacity * bufferSize, pinned: true);
        _lengths = new int[capacity];
    }

    /// <summary>Slots in the batch.</summary>
    public int Capacity { get; }

    /// <summary>Bytes per slot.</summary>
    public int BufferSize { get; }

    /// <summary>Slots holding a packet.</summary>
    public int Count { get; private set; }

    /// <summary>The packet in slot <paramref name="index"/>.</summary>
    public Span<byte> this[int index]
    {
        get
        {
            ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)index, (uint)Count, nameof(index));
            return _storage.AsSpan(index * BufferSize, _lengths[index]);
        }
    }

    /// <summary>The whole buffer of the next free slot, to read a packet into; commit it with <see cref="Commit"/>.</summary>
    public Span<byte> NextBuffer => Count < Capacity ? _storage.AsSpan(Count * BufferSize, BufferSize) : [];

    /// <summary>Whether every slot holds a packet.</summary>
    public bool IsFull => Count == Capacity;

    /// <summary>Takes the <paramref name="length"/> bytes just written to <see cref="NextBuffer"/> as a packet.</summary>
    public void Commit(int length)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, BufferSize);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        if (IsFull)
        {
            throw new InvalidOperationException("The batch is full.");
        }

        _lengths[Count++] = length;
    }

    /// <summary>Copies <paramref name="packet"/> into the next slot; false when full or too long.</summary>
    public bool TryAdd(ReadOnlySpan<byte> packet)
    {
        if (IsFull || packet.Length > BufferSize)
        {
            return false;
        }

        packet.CopyTo(NextBuffer);
        Commit(packet.Length);
        return true;
    }

    /// <summary>Empties the batch for the next round.</summary>
    public void Clear() => Count = 0;
}
