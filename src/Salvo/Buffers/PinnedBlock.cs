using System.Buffers;

namespace Salvo.Buffers;

/// <summary>
/// A fixed-size block cut from one of a <see cref="PinnedBufferPool"/>'s pinned slabs. The memory never
/// moves, so it can be handed to the kernel without pinning. Disposing returns it to its pool.
/// </summary>
public sealed class PinnedBlock : IMemoryOwner<byte>
{
    private readonly PinnedBufferPool _pool;
    private readonly byte[] _slab;
    private readonly int _offset;
    private int _rented;

    internal PinnedBlock(PinnedBufferPool pool, byte[] slab, int offset, int length)
    {
        _pool = pool;
        _slab = slab;
        _offset = offset;
        Length = length;
    }

    /// <summary>The block size in bytes.</summary>
    public int Length { get; }

    /// <summary>The block's memory.</summary>
    /// <exception cref="ObjectDisposedException">The block was returned to its pool.</exception>
    public Memory<byte> Memory
    {
        get
        {
            ObjectDisposedException.ThrowIf(Volatile.Read(ref _rented) == 0, this);
            return new Memory<byte>(_slab, _offset, Length);
        }
    }

    /// <summary>The block's memory as a span.</summary>
    public Span<byte> Span => Memory.Span;

    /// <summary>Returns the block to its pool. A second call does nothing.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _rented, 0) == 1)
        {
            _pool.Return(this);
        }
    }

    internal void MarkRented() => Volatile.Write(ref _rented, 1);
}
