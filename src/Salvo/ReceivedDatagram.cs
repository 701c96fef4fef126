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
        Destination = entry.LocalAddress;
        InterfaceIndex = entry.InterfaceIndex;
        Ecn = entry.Ecn;
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
    /// The local address the datagram was sent to (useful on a socket bound to 0.0.0.0 or ::), with the
    /// socket's port. <see cref="DatagramAddress.None"/> unless
    /// <see cref="DatagramSocketOptions.ReceivePacketInformation"/> is on (Linux backend).
    /// </summary>
    public DatagramAddress Destination { get; }

    /// <summary>The index of the interface the datagram arrived on, or 0 when not known (see <see cref="Destination"/>).</summary>
    public int InterfaceIndex { get; }

    /// <summary>The ECN bits the datagram carried; <see cref="EcnCodepoint.NotEct"/> unless <see cref="DatagramSocketOptions.ReceiveEcn"/> is on (Linux backend).</summary>
    public EcnCodepoint Ecn { get; }

    /// <summary>
    /// True when the datagram was larger than the batch's <see cref="ReceiveBatch.BufferSize"/> and the
    /// kernel cut it: <see cref="Payload"/> holds only its first bytes. Never silent: also counted in
    /// <see cref="DatagramSocketStatistics.TruncatedDatagrams"/>.
    /// </summary>
    public bool IsTruncated { get; }
}
