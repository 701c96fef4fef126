using System.Text;

namespace Salvo.Tunnel.Control;

/// <summary>
/// Reads '\n'-ended ASCII lines from a control connection with a bound on each line, so a client that never sends a
/// newline holds 64 KiB at most. The protocol's longest line is a 64-digit hex key with its name (under 100 bytes).
/// </summary>
internal sealed class UapiLineReader(Stream stream)
{
    /// <summary>The longest line taken; a longer one ends the connection.</summary>
    public const int MaxLineBytes = 4096;

    private readonly byte[] _buffer = new byte[64 * 1024];
    private int _start;
    private int _end;

    /// <summary>Bytes of lines read so far, newlines included.</summary>
    public long BytesRead { get; private set; }

    /// <summary>The next line without its '\n'; null at the end of the stream.</summary>
    /// <exception cref="InvalidDataException">A line is longer than <see cref="MaxLineBytes"/>.</exception>
    public async ValueTask<string?> ReadLineAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            var newline = Array.IndexOf(_buffer, (byte)'\n', _start, _end - _start);
            if (newline >= 0)
            {
                var line = Encoding.ASCII.GetString(_buffer, _start, newline - _start);
                BytesRead += newline + 1 - _start;
                _start = newline + 1;
                return line;
            }

            if (_end - _start > MaxLineBytes)
            {
                throw new InvalidDataException($"a line is longer than {MaxLineBytes} bytes");
            }

            if (_start > 0)
            {
                Buffer.BlockCopy(_buffer, _start, _buffer, 0, _end - _start);
                _end -= _start;
                _start = 0;
            }

            var read = await stream.ReadAsync(_buffer.AsMemory(_end), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                return null;
            }

            _end += read;
        }
    }
}
