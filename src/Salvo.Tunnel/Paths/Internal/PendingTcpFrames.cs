using Salvo.Streams;

namespace Salvo.Tunnel.Paths;

/// <summary>
/// The messages one device loop has for TCP connections since its last flush, in one buffer: the engine fills each
/// in place, as it fills a UDP send batch, and <see cref="Flush"/> hands each connection's run of them over in one
/// <see cref="StreamConnection.TrySendBatch"/>. The buffer starts at <paramref name="capacity"/> messages of
/// <paramref name="maxMessage"/> bytes; a longer message grows it (once empty) to hold that many of its length, and
/// it never shrinks, so the engine's messages are never refused.
/// </summary>
internal sealed class PendingTcpFrames(int capacity, int maxMessage)
{
    private byte[] _buffer = GC.AllocateUninitializedArray<byte>(capacity * maxMessage);
    private readonly (DatagramAddress Path, int Offset, int Length)[] _frames = new (DatagramAddress, int, int)[capacity];
    private readonly ReadOnlyMemory<byte>[] _run = new ReadOnlyMemory<byte>[capacity];
    private int _count;
    private int _used;

    public int Count => _count;

    /// <summary>Reserves <paramref name="length"/> bytes for the connection named <paramref name="path"/>; false when full (flush first).</summary>
    public bool TryAdd(int length, DatagramAddress path, out Span<byte> message)
    {
        if (_count == 0 && length > _buffer.Length / _frames.Length)
        {
            _buffer = GC.AllocateUninitializedArray<byte>(checked(_frames.Length * length));
        }

        if (_count == _frames.Length || _used + length > _buffer.Length)
        {
            message = default;
            return false;
        }

        _frames[_count++] = (path, _used, length);
        message = _buffer.AsSpan(_used, length);
        _used += length;
        return true;
    }

    /// <summary>Sends what is pending; messages a connection cannot take (gone, or its send queue full) are counted by <paramref name="paths"/>.</summary>
    public void Flush(TcpPaths paths)
    {
        var start = 0;
        while (start < _count)
        {
            var path = _frames[start].Path;
            var end = start;
            while (end < _count && _frames[end].Path == path)
            {
                _run[end - start] = _buffer.AsMemory(_frames[end].Offset, _frames[end].Length);
                end++;
            }

            _ = paths.TrySend(path, _run.AsSpan(0, end - start));
            start = end;
        }

        Clear();
    }

    /// <summary>Forgets what is pending without sending it.</summary>
    public void Clear()
    {
        _run.AsSpan(0, _count).Clear();
        _count = 0;
        _used = 0;
    }
}
