using System.Net.Sockets;

namespace Salvo;

/// <summary>
/// A reusable list of datagrams to send, each with its destination. <see cref="DatagramSocket.SendAsync(SendBatch, CancellationToken)"/>
/// hands the whole batch to the kernel in one system call on Linux.
/// </summary>
/// <remarks>
/// Payloads are <b>copied</b> into the batch's own pinned arena when added (or written there directly
/// with <see cref="TryAdd(int, DatagramAddress, out Span{byte})"/>), so the caller's buffer is free as soon
/// as the add returns and the send never reads memory the caller might change. Payloads are packed back
/// to back, so a run of equal-sized datagrams is one contiguous region. The arena is
/// <see cref="Capacity"/> x <see cref="MaxDatagramSize"/> bytes (4 MiB with the defaults); choose a
/// smaller <see cref="MaxDatagramSize"/> for small datagrams. Sending does not clear the batch: call
/// <see cref="Clear"/> before filling it again. Not thread-safe.
/// </remarks>
public sealed class SendBatch
{
    /// <summary>The default number of datagrams per batch: 64.</summary>
    public const int DefaultCapacity = 64;

    /// <summary>The most datagrams one batch holds: 1,024 (the kernel's UIO_MAXIOV, the most messages one sendmmsg takes).</summary>
    public const int MaxCapacity = 1024;

    /// <summary>The default and largest payload over IPv4: 65,507 bytes (65,535 - 20 IP - 8 UDP).</summary>
    public const int DefaultMaxDatagramSize = 65_507;

    /// <summary>The largest payload this type accepts: 65,527 bytes, the IPv6 limit without jumbograms.</summary>
    public const int LargestDatagramSize = 65_527;

    private readonly DatagramEntry[] _entries;
    private int _count;
    private int _used;

    /// <summary>Creates a batch.</summary>
    /// <param name="capacity">Datagrams per batch, 1 to 1,024. Defaults to 64.</param>
    /// <param name="maxDatagramSize">The largest payload one entry may carry, 0 to 65,527. Defaults to 65,507.</param>
    /// <exception cref="ArgumentOutOfRangeException">A value is outside its range.</exception>
    public SendBatch(int capacity = DefaultCapacity, int maxDatagramSize = DefaultMaxDatagramSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(capacity, MaxCapacity);
        ArgumentOutOfRangeException.ThrowIfNegative(maxDatagramSize);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(maxDatagramSize, LargestDatagramSize);
        Capacity = capacity;
        MaxDatagramSize = maxDatagramSize;
        Arena = GC.AllocateUninitializedArray<byte>(Math.Max(1, checked(capacity * maxDatagramSize)), pinned: true);
        _entries = new DatagramEntry[capacity];
    }

    /// <summary>The most datagrams the batch holds.</summary>
    public int Capacity { get; }

    /// <summary>The largest payload one entry may carry.</summary>
    public int MaxDatagramSize { get; }

    /// <summary>Datagrams in the batch.</summary>
    public int Count => _count;

    /// <summary>Payload bytes in the batch.</summary>
    public int PayloadBytes => _used;

    /// <summary>Whether no more datagrams fit.</summary>
    public bool IsFull => _count == Capacity;

    /// <summary>
    /// How many datagrams of the last send failed (each is counted in the socket's statistics and skipped;
    /// the rest of the batch still went out).
    /// </summary>
    public int FailedCount { get; internal set; }

    /// <summary>The error of the first datagram that failed in the last send, or <see cref="SocketError.Success"/>.</summary>
    public SocketError FirstError { get; internal set; }

    /// <summary>The index of the first datagram that failed in the last send, or -1.</summary>
    public int FirstFailedIndex { get; internal set; } = -1;

    /// <summary>Copies <paramref name="payload"/> in as a new datagram to <paramref name="destination"/>.</summary>
    /// <param name="payload">The bytes; copied, so the caller may reuse them at once.</param>
    /// <param name="destination">Where to send it; <see cref="DatagramAddress.None"/> for a connected socket's peer.</param>
    /// <exception cref="ArgumentException"><paramref name="payload"/> is longer than <see cref="MaxDatagramSize"/>.</exception>
    /// <exception cref="InvalidOperationException">The batch is full.</exception>
    public void Add(ReadOnlySpan<byte> payload, DatagramAddress destination = default)
    {
        if (!TryAdd(payload, destination))
        {
            throw new InvalidOperationException($"The SendBatch is full ({Capacity} datagrams); send it and Clear() it first.");
        }
    }

    /// <summary>Copies <paramref name="payload"/> in, or returns false when the batch is full.</summary>
    /// <exception cref="ArgumentException"><paramref name="payload"/> is longer than <see cref="MaxDatagramSize"/>.</exception>
    public bool TryAdd(ReadOnlySpan<byte> payload, DatagramAddress destination = default) =>
        TryAdd(payload, destination, default);

    /// <summary>
    /// Reserves a datagram of <paramref name="length"/> bytes and returns its space to write the payload
    /// into directly (no copy), or returns false when the batch is full.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="length"/> is negative or over <see cref="MaxDatagramSize"/>.</exception>
    public bool TryAdd(int length, DatagramAddress destination, out Span<byte> payload) =>
        TryReserve(length, nameof(length), destination, default, EcnCodepoint.NotEct, out payload);

    /// <summary>
    /// Copies <paramref name="payload"/> in as a datagram sent from the local address <paramref name="source"/>
    /// (on a socket bound to a wildcard address: reply from the address a request came to) with the ECN
    /// bits <paramref name="ecn"/>; returns false when the batch is full. Source and ECN are applied by the
    /// Linux backend; the portable backend sends from the bound address without ECN marks.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="payload"/> is longer than <see cref="MaxDatagramSize"/>.</exception>
    public bool TryAdd(ReadOnlySpan<byte> payload, DatagramAddress destination, DatagramAddress source, EcnCodepoint ecn = EcnCodepoint.NotEct)
    {
        if (!TryReserve(payload.Length, nameof(payload), destination, source, ecn, out var space))
        {
            return false;
        }

        payload.CopyTo(space);
        return true;
    }

    private bool TryReserve(int length, string parameterName, DatagramAddress destination, DatagramAddress source, EcnCodepoint ecn, out Span<byte> payload)
    {
        if ((uint)length > (uint)MaxDatagramSize)
        {
            ThrowTooLong(length, parameterName);
        }

        if (_count == Capacity || _used + length > Arena.Length)
        {
            payload = default;
            return false;
        }

        ref var entry = ref _entries[_count++];
        entry.Offset = _used;
        entry.Length = length;
        entry.Address = destination;
        entry.LocalAddress = source;
        entry.Ecn = ecn;
        entry.IsTruncated = false;
        _used += length;
        payload = Arena.AsSpan(entry.Offset, length);
        return true;
    }

    /// <summary>The payload of datagram <paramref name="index"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is outside the batch.</exception>
    public ReadOnlySpan<byte> GetPayload(int index) => GetMemory(index).Span;

    /// <summary>The destination of datagram <paramref name="index"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is outside the batch.</exception>
    public DatagramAddress GetDestination(int index)
    {
        CheckIndex(index);
        return _entries[index].Address;
    }

    /// <summary>Empties the batch for reuse.</summary>
    public void Clear()
    {
        _count = 0;
        _used = 0;
        ResetOutcome();
    }

    internal byte[] Arena { get; }

    internal DatagramEntry[] Entries => _entries;

    internal ReadOnlyMemory<byte> GetMemory(int index)
    {
        CheckIndex(index);
        ref readonly var entry = ref _entries[index];
        return new ReadOnlyMemory<byte>(Arena, entry.Offset, entry.Length);
    }

    /// <summary>
    /// What the backend that sends this batch keeps with it between calls (native message headers, a destination
    /// holder), made on first use. Only the backend reads it; a batch moved to another backend is re-fitted.
    /// </summary>
    internal object? BackendState { get; set; }

    internal void ResetOutcome()
    {
        FailedCount = 0;
        FirstError = SocketError.Success;
        FirstFailedIndex = -1;
    }

    internal void RecordFailure(int index, SocketError error)
    {
        if (FailedCount++ == 0)
        {
            FirstError = error;
            FirstFailedIndex = index;
        }
    }

    private void CheckIndex(int index)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(index, _count);
    }

    private void ThrowTooLong(int length, string parameterName) =>
        throw new ArgumentOutOfRangeException(parameterName, length,
            $"A datagram of {length} bytes exceeds this SendBatch's MaxDatagramSize of {MaxDatagramSize} bytes.");
}
