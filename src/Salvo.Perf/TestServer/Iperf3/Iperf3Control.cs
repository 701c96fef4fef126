using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// iperf3's control connection: single state bytes and JSON objects behind a 4-byte big-endian length.
/// Every read is bounded in time and every JSON in size, so a silent or garbled peer ends its test
/// with a reason instead of holding the server.
/// </summary>
internal sealed class Iperf3Control(Socket socket) : IDisposable
{
    /// <summary>The longest JSON accepted: results of 128 streams take ~32 KB.</summary>
    public const int MaxJsonBytes = 256 * 1024;

    private readonly NetworkStream _stream = new(WithoutNagle(socket), ownsSocket: true);

    /// <summary>The peer's address.</summary>
    public IPEndPoint Remote { get; } = (IPEndPoint)socket.RemoteEndPoint!;

    /// <summary>
    /// State bytes go out at once, on the client's connection and the server's alike. With Nagle's algorithm the server's TEST_START waited behind the unacknowledged
    /// CREATE_STREAMS for the client's delayed ACK (40 ms on Linux) while the reverse-mode data already flowed, and the
    /// stock client, which reads data only once it is running, overflowed its socket buffer: 114-300 datagrams lost at
    /// the start of `iperf3 -u -b 100M -R` (strace: CREATE_STREAMS read at .995, TEST_START at 1.039).
    /// </summary>
    private static Socket WithoutNagle(Socket socket)
    {
        socket.NoDelay = true;
        return socket;
    }

    /// <summary>Checks a JSON length prefix; returns the length, or throws <see cref="InvalidDataException"/> naming the bound.</summary>
    public static int DecodeLength(ReadOnlySpan<byte> prefix)
    {
        var length = BinaryPrimitives.ReadUInt32BigEndian(prefix);
        return length is 0 or > MaxJsonBytes
            ? throw new InvalidDataException($"JSON length {length} is outside 1..{MaxJsonBytes} bytes")
            : (int)length;
    }

    /// <summary>Reads exactly <paramref name="count"/> bytes within <paramref name="timeout"/>.</summary>
    /// <exception cref="TimeoutException">Nothing complete arrived in time.</exception>
    /// <exception cref="EndOfStreamException">The peer closed the connection.</exception>
    public async Task<byte[]> ReadAsync(int count, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var buffer = new byte[count];
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(timeout);
        try
        {
            await _stream.ReadExactlyAsync(buffer, deadline.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new TimeoutException($"nothing from {Remote} within {timeout.TotalSeconds:F0} s");
        }
        catch (EndOfStreamException)
        {
            throw new EndOfStreamException($"{Remote} closed the control connection");
        }

        return buffer;
    }

    /// <summary>Reads one state byte.</summary>
    public async Task<Iperf3State> ReadStateAsync(TimeSpan timeout, CancellationToken cancellationToken) =>
        (Iperf3State)(sbyte)(await ReadAsync(1, timeout, cancellationToken).ConfigureAwait(false))[0];

    /// <summary>Reads one state byte and checks it is <paramref name="expected"/>.</summary>
    /// <exception cref="InvalidDataException">Another state came.</exception>
    public async Task ExpectStateAsync(Iperf3State expected, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var state = await ReadStateAsync(timeout, cancellationToken).ConfigureAwait(false);
        if (state != expected)
        {
            throw new InvalidDataException($"expected state {expected} ({(int)expected}), got {Describe(state)}");
        }
    }

    /// <summary>Writes raw bytes (the cookie).</summary>
    public Task WriteAsync(byte[] bytes, CancellationToken cancellationToken) => _stream.WriteAsync(bytes, cancellationToken).AsTask();

    /// <summary>Writes one state byte.</summary>
    public Task WriteStateAsync(Iperf3State state, CancellationToken cancellationToken) =>
        _stream.WriteAsync(new[] { (byte)(sbyte)state }, cancellationToken).AsTask();

    /// <summary>
    /// Writes one state byte when the connection still takes it within <paramref name="timeout"/>, for the last word
    /// to a client whose test cannot go on (ACCESS_DENIED, SERVER_TERMINATE); false when it did not go out.
    /// </summary>
    public async Task<bool> TryWriteStateAsync(Iperf3State state, TimeSpan timeout)
    {
        using var deadline = new CancellationTokenSource(timeout);
        try
        {
            await WriteStateAsync(state, deadline.Token).ConfigureAwait(false);
            return true;
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
        {
            return false;
        }
    }

    /// <summary>Writes <see cref="Iperf3State.ServerError"/> followed by the error's code and errno.</summary>
    public Task WriteErrorAsync(Iperf3Error error, CancellationToken cancellationToken)
    {
        var message = new byte[9];
        message[0] = unchecked((byte)(sbyte)Iperf3State.ServerError);
        BinaryPrimitives.WriteInt32BigEndian(message.AsSpan(1), error.Code);
        BinaryPrimitives.WriteInt32BigEndian(message.AsSpan(5), error.Errno);
        return _stream.WriteAsync(message, cancellationToken).AsTask();
    }

    /// <summary>Reads one length-prefixed JSON object's bytes.</summary>
    /// <exception cref="InvalidDataException">The length is 0 or above <see cref="MaxJsonBytes"/>.</exception>
    public async Task<byte[]> ReadJsonAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        var length = DecodeLength(await ReadAsync(4, timeout, cancellationToken).ConfigureAwait(false));
        return await ReadAsync(length, timeout, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Writes one length-prefixed JSON object.</summary>
    public async Task WriteJsonAsync(byte[] json, CancellationToken cancellationToken)
    {
        var prefix = new byte[4];
        BinaryPrimitives.WriteUInt32BigEndian(prefix, (uint)json.Length);
        await _stream.WriteAsync(prefix, cancellationToken).ConfigureAwait(false);
        await _stream.WriteAsync(json, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>A state for a message: its name and number, or the number alone when iperf3 defines none.</summary>
    public static string Describe(Iperf3State state) =>
        Enum.IsDefined(state) ? $"{state} ({(int)state})" : $"unknown state {(int)state}";

    public void Dispose() => _stream.Dispose();
}
