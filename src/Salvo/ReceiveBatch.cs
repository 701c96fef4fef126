namespace Salvo;

/// <summary>
/// A reusable set of pinned receive buffers: one <see cref="DatagramSocket.ReceiveAsync(ReceiveBatch, CancellationToken)"/>
/// fills up to <see cref="Capacity"/> datagrams with one system call on Linux. Allocate it once per
/// receive loop; receiving into it allocates nothing. Not thread-safe: one receive at a time.
/// </summary>
/// <remarks>
/// Memory: <see cref="Capacity"/> blocks of <see cref="BufferSize"/> bytes from the pinned object heap
/// (4 MiB with the defaults), so the kernel writes straight into it and the GC never moves it.
/// </remarks>
public sealed class ReceiveBatch
{
    /// <summary>The default number of datagrams per batch: 64 (quinn-udp and MsQuic use 32 to 64).</summary>
    public const int DefaultCapacity = 64;

    /// <summary>
    /// The default buffer per datagram: 65,536 bytes, enough for any UDP datagram (65,507 bytes over IPv4,
    /// 65,527 over IPv6), so nothing is truncated unless a smaller size is chosen.
    /// </summary>
    public const int DefaultBufferSize = 65_536;

    private DatagramEntry[] _entries;
    private int _count;

    /// <summary>Creates a batch.</summary>
    /// <param name="capacity">Datagrams per receive, 1 to 1,024. Defaults to 64.</param>
    /// <param name="bufferSize">Bytes per datagram buffer, 1 to 65,536; larger datagrams are reported truncated. Defaults to 65,536.</param>
    /// <exception cref="ArgumentOutOfRangeException">A value is outside its range.</exception>
    public ReceiveBatch(int capacity = DefaultCapacity, int bufferSize = DefaultBufferSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(capacity, 1024);
        ArgumentOutOfRangeException.ThrowIfLessThan(bufferSize, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(bufferSize, DefaultBufferSize);
        Capacity = capacity;
        BufferSize = bufferSize;
        // One spare byte per slot lets the portable backend detect truncation (a datagram that fills
        // BufferSize + 1 bytes was longer than BufferSize); 64-byte alignment keeps slots on cache lines.
        SlotStride = (bufferSize + 1 + 63) & ~63;
        Buffer = GC.AllocateUninitializedArray<byte>(checked(capacity * SlotStride), pinned: true);
        _entries = new DatagramEntry[capacity];
    }

    /// <summary>
    /// Buffers filled per receive: the most datagrams one receive returns, except that with GRO one buffer
    /// may hold up to 64 datagrams of one flow, each exposed as its own entry.
    /// </summary>
    public int Capacity { get; }

    /// <summary>Bytes per datagram buffer; a longer datagram is delivered cut and marked truncated.</summary>
    public int BufferSize { get; }

    /// <summary>Datagrams held from the last receive.</summary>
    public int Count => _count;

    /// <summary>The datagram at <paramref name="index"/> (0 to <see cref="Count"/> - 1).</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is outside the batch.</exception>
    public ReceivedDatagram this[int index]
    {
        get
        {
            ArgumentOutOfRangeException.ThrowIfNegative(index);
            ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(index, _count);
            ref readonly var entry = ref _entries[index];
            return new ReceivedDatagram(new ReadOnlyMemory<byte>(Buffer, entry.Offset, entry.Length), entry);
        }
    }

    /// <summary>Enumerates the received datagrams without allocating.</summary>
    public Enumerator GetEnumerator() => new(this);

    internal byte[] Buffer { get; }

    internal int SlotStride { get; }

    internal DatagramEntry[] Entries => _entries;

    /// <summary>
    /// What the backend that receives into this batch keeps with it between calls (native message headers, a source
    /// address holder), made on first use. Only the backend reads it; a batch moved to another backend is re-fitted.
    /// </summary>
    internal object? BackendState { get; set; }

    internal void SetCount(int count) => _count = count;

    /// <summary>Makes room for <paramref name="entries"/> datagrams (GRO splits one buffer into many); allocates once.</summary>
    internal void EnsureEntryCapacity(int entries)
    {
        if (_entries.Length < entries)
        {
            _entries = new DatagramEntry[entries];
        }
    }

    /// <summary>Enumerates a batch's datagrams.</summary>
    public struct Enumerator
    {
        private readonly ReceiveBatch _batch;
        private int _index;

        internal Enumerator(ReceiveBatch batch)
        {
            _batch = batch;
            _index = -1;
        }

        /// <summary>The current datagram.</summary>
        public readonly ReceivedDatagram Current => _batch[_index];

        /// <summary>Advances to the next datagram.</summary>
        public bool MoveNext() => ++_index < _batch._count;
    }
}
