using System.Buffers;

namespace Salvo.Tunnel.Control;

/// <summary>What <see cref="UapiLineReader.ReadLineAsync"/> found.</summary>
internal enum UapiLineStatus
{
    /// <summary>A whole line, in <see cref="UapiLineReader.Line"/>.</summary>
    Line,

    /// <summary>The stream ended (a partial last line is dropped with it).</summary>
    End,

    /// <summary>A line longer than the limit: it is not read further, and the connection cannot go on.</summary>
    TooLong,
}

/// <summary>
/// Reads '\n'-ended lines from a control connection into one pooled buffer, so a connection holds that buffer and
/// nothing more however much it sends; a line over the limit is refused before it is parsed.
/// </summary>
internal sealed class UapiLineReader : IDisposable
{
    // Room for one whole line and a few more behind it, so one read usually brings several of wg's short lines.
    private const int BufferBytes = 4096;

    /// <summary>
    /// The buffer of a large request (<see cref="Grow"/>): a 190 MB wg setconf is 3,000 reads instead of 47,000, and
    /// only the few requests that hold a large turn at once hold one.
    /// </summary>
    public const int LargeBufferBytes = 64 << 10;

    private readonly Stream _stream;
    private readonly int _maxLineBytes;
    private byte[]? _buffer;
    private int _capacity = BufferBytes;
    private int _start;
    private int _end;
    private int _lineStart;
    private int _lineLength;

    public UapiLineReader(Stream stream, int maxLineBytes)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(maxLineBytes, BufferBytes / 2);
        _stream = stream;
        _maxLineBytes = maxLineBytes;
        _buffer = ArrayPool<byte>.Shared.Rent(BufferBytes);
    }

    /// <summary>Bytes of whole lines read so far, newlines included.</summary>
    public long BytesRead { get; private set; }

    /// <summary>The last line read, without its '\n'; valid until the next read.</summary>
    public ReadOnlySpan<byte> Line => Buffer.AsSpan(_lineStart, _lineLength);

    private byte[] Buffer => _buffer ?? throw new ObjectDisposedException(nameof(UapiLineReader));

    /// <summary>The next line if the buffer holds it whole (or holds too much for one), without reading.</summary>
    /// <returns>False when the stream must be read first.</returns>
    public bool TryReadBuffered(out UapiLineStatus status)
    {
        var newline = Buffer.AsSpan(_start, _end - _start).IndexOf((byte)'\n');
        if (newline > _maxLineBytes || (newline < 0 && _end - _start > _maxLineBytes))
        {
            status = UapiLineStatus.TooLong;
            return true;
        }

        if (newline >= 0)
        {
            _lineStart = _start;
            _lineLength = newline;
            _start += newline + 1;
            BytesRead += newline + 1;
            status = UapiLineStatus.Line;
            return true;
        }

        status = default;
        return false;
    }

    public async ValueTask<UapiLineStatus> ReadLineAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            if (TryReadBuffered(out var status))
            {
                return status;
            }

            var buffer = Buffer;

            if (_start > 0)
            {
                buffer.AsSpan(_start, _end - _start).CopyTo(buffer);
                _end -= _start;
                _start = 0;
            }

            var read = await _stream.ReadAsync(buffer.AsMemory(_end, _capacity - _end), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                return UapiLineStatus.End;
            }

            _end += read;
        }
    }

    /// <summary>
    /// Reads on into a buffer of <paramref name="bytes"/>, keeping what is buffered; no-op when it is that large
    /// already. <see cref="Line"/> is empty until the next read.
    /// </summary>
    public void Grow(int bytes)
    {
        var buffer = Buffer;
        if (bytes <= _capacity)
        {
            return;
        }

        var grown = ArrayPool<byte>.Shared.Rent(bytes);
        buffer.AsSpan(_start, _end - _start).CopyTo(grown);
        _end -= _start;
        _start = 0;
        _lineStart = 0;
        _lineLength = 0;
        _buffer = grown;
        _capacity = bytes;
        ArrayPool<byte>.Shared.Return(buffer);
    }

    public void Dispose()
    {
        if (_buffer is { } buffer)
        {
            _buffer = null;
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
