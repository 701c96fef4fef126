namespace Salvo;

/// <summary>
/// One datagram of a <see cref="ReceiveBatch"/>: a slice of the batch's pinned memory plus its source.
/// Valid until the batch is received into again.
/// </summary>
public readonly struct ReceivedDatagram
{
    private readonly ReadOnlyMemory<byte> _memory;

    internal ReceivedDatagram(ReadOnlyMemory<byte> memory, in DatagramEntry entry)
    {
        _memory = memory;
        Source = entry.Address;
        IsTruncated = entry.IsTruncated;
    }

    /// <summary>The payload bytes (only what fitted, when <see cref="IsTruncated"/>).</summary>
    public ReadOnlySpan<byte> Payload => _memory.Span;

    /// <summary>The payload as memory, to hand on without copying while the batch is not reused.</summary>
    public ReadOnlyMemory<byte> Memory => _memory;

    /// <summary>The payload length in bytes.</summary>
    public int Length => _memory.Length;

    /// <summary>Who sent the datagram.</summary>
    public DatagramAddress Source { get; }

    /// <summary>
    /// True when the datagram was larger than the batch's <see cref="ReceiveBatch.BufferSize"/> and the
    /// kernel cut it: <see cref="Payload"/> holds only its first bytes. Never silent: also counted in
    /// <see cref="DatagramSocketStatistics.TruncatedDatagrams"/>.
    /// </summary>
    public bool IsTruncated { get; }
}
