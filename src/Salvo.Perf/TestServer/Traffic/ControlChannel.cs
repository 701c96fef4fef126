using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary>Newline-delimited JSON control messages over TCP, each line bounded, every read bounded in time.</summary>
internal sealed class ControlChannel(Socket socket) : IDisposable
{
    /// <summary>The longest control line accepted.</summary>
    public const int MaxLineBytes = 4096;

    private readonly NetworkStream _stream = new(socket, ownsSocket: true);
    private readonly byte[] _buffer = new byte[MaxLineBytes];
    private int _buffered;

    /// <summary>The peer's address.</summary>
    public System.Net.IPEndPoint Remote { get; } = (System.Net.IPEndPoint)socket.RemoteEndPoint!;

    /// <summary>Sends one message.</summary>
    public async Task SendAsync(ControlMessage message, CancellationToken cancellationToken)
    {
        var line = JsonSerializer.SerializeToUtf8Bytes(message, PerfJson.Compact.ControlMessage);
        await _stream.WriteAsync(line, cancellationToken).ConfigureAwait(false);
        await _stream.WriteAsync("\n"u8.ToArray(), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Reads one message within <paramref name="timeout"/>.</summary>
    /// <exception cref="InvalidDataException">The line is too long, not JSON, or has no type; the message says which.</exception>
    /// <exception cref="EndOfStreamException">The peer closed the connection.</exception>
    public async Task<ControlMessage> ReceiveAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(timeout);
        while (true)
        {
            var newline = Array.IndexOf(_buffer, (byte)'\n', 0, _buffered);
            if (newline >= 0)
            {
                var line = _buffer.AsSpan(0, newline).ToArray();
                _buffer.AsSpan(newline + 1, _buffered - newline - 1).CopyTo(_buffer);
                _buffered -= newline + 1;
                return Parse(line);
            }

            if (_buffered == _buffer.Length)
            {
                throw new InvalidDataException($"control line longer than {MaxLineBytes} bytes");
            }

            int read;
            try
            {
                read = await _stream.ReadAsync(_buffer.AsMemory(_buffered), deadline.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new TimeoutException($"no control message from {Remote} within {timeout.TotalSeconds:F0} s");
            }

            if (read == 0)
            {
                throw new EndOfStreamException($"{Remote} closed the control connection");
            }

            _buffered += read;
        }
    }

    /// <summary>Parses one control line; never throws anything but <see cref="InvalidDataException"/>.</summary>
    public static ControlMessage Parse(ReadOnlySpan<byte> line)
    {
        ControlMessage? message;
        try
        {
            message = JsonSerializer.Deserialize(line, PerfJson.Compact.ControlMessage);
        }
        catch (JsonException e)
        {
            throw new InvalidDataException(ControlLineErrors.Describe(e, line), e);
        }

        if (message is null || string.IsNullOrEmpty(message.Type))
        {
            throw new InvalidDataException($"control message has no type: '{Encoding.UTF8.GetString(line[..Math.Min(line.Length, 80)])}'");
        }

        // The side report is printed as a table row keyed by its role; a report without one ended the server's loop.
        if (message.Side is { Role: not ("sender" or "receiver") } side)
        {
            throw new InvalidDataException($"control message '{message.Type}' has a side report with role '{side.Role ?? "(none)"}'; expected sender or receiver");
        }

        return message;
    }

    /// <summary>
    /// Sends an error with <paramref name="reason"/> (which the client prints) and closes without losing it: the
    /// sending half is shut first, then what the client still sends is read and dropped until it closes too, for at
    /// most <paramref name="linger"/> and 64 KiB. Closing with unread input would send a reset instead of the reply
    /// (RFC 1122 4.2.2.13), which a client sending a long line would meet before reading the error. Never throws.
    /// </summary>
    public async Task RefuseAsync(string reason, TimeSpan linger)
    {
        using var deadline = new CancellationTokenSource(linger);
        try
        {
            await SendAsync(new ControlMessage("error", Reason: reason), deadline.Token).ConfigureAwait(false);
            _stream.Socket.Shutdown(SocketShutdown.Send);
            var sink = new byte[4096];
            for (var drained = 0; drained < 64 * 1024;)
            {
                var read = await _stream.ReadAsync(sink, deadline.Token).ConfigureAwait(false);
                if (read == 0)
                {
                    break;
                }

                drained += read;
            }
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // The client went first, or lingers past the limit: the error was sent as far as it could be.
        }
    }

    public void Dispose() => _stream.Dispose();
}
