using System.Buffers;

namespace Salvo.Streams;

/// <summary>
/// Where a framer writes a message it had to unescape. Rents from <see cref="ArrayPool{T}"/> only while a message
/// is being handled and gives the array back on <see cref="Reset"/>, so an idle connection holds nothing.
/// </summary>
internal sealed class ScratchBuffer : IBufferWriter<byte>
{
    private byte[]? _array;
    private int _written;

    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, (_array?.Length ?? 0) - _written);
        _written += count;
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return _array.AsMemory(_written);
    }

    public Span<byte> GetSpan(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return _array.AsSpan(_written);
    }

    public void Reset()
    {
        if (_array is { } array)
        {
            _array = null;
            _written = 0;
            ArrayPool<byte>.Shared.Return(array);
        }
    }

    private void Ensure(int sizeHint)
    {
        var needed = _written + Math.Max(sizeHint, 1);
        if (_array is null || _array.Length < needed)
        {
            // The old array may still back a message being handled, so it is left to the GC, not returned.
            // Rare: framers ask once per message and the receive loop resets after each one.
            var larger = ArrayPool<byte>.Shared.Rent(Math.Max(needed, 256));
            _array?.AsSpan(0, _written).CopyTo(larger);
            _array = larger;
        }
    }
}
