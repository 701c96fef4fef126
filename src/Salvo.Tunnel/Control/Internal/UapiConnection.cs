using System.Buffers;
using System.Net.Sockets;
using System.Text;

namespace Salvo.Tunnel.Control;

/// <summary>
/// One client of the control socket: reads its requests line by line under the idle and request timeouts, answers
/// <c>get=1</c>, and applies a <c>set=1</c> only once its blank line has come. Whatever the client sends or fails to
/// send, only this connection ends.
/// </summary>
internal sealed class UapiConnection : IDisposable
{
    // Answers are written in pieces of this size, so a 10,000-peer get (about 2.5 MB of text) is never a second copy;
    // a get's page (about 300 KB) goes out in one write.
    private const int AnswerChunkBytes = 16 << 10;

    // A set this large (about 40,000 peers) leaves tens to hundreds of megabytes of parsed peers behind once applied
    // (about 400 bytes a peer); the collector keeps that memory for the next allocation unless told to give it back.
    private const long GiveBackAfterBytes = 8 << 20;

    private readonly WireGuardControlSocket _owner;
    private readonly Socket _socket;
    private readonly CancellationTokenSource _cancel;
    private long _lastProgress = Environment.TickCount64;
    private long _requestDeadline = long.MaxValue;
    private UapiRefusal _timeoutReason = UapiRefusal.IdleTimeout;
    private volatile bool _evicted;

    public UapiConnection(WireGuardControlSocket owner, Socket socket, long sequence)
    {
        _owner = owner;
        _socket = socket;
        Sequence = sequence;
        _cancel = CancellationTokenSource.CreateLinkedTokenSource(owner.Stopping);
    }

    /// <summary>When the connection last completed a line (<see cref="Environment.TickCount64"/>).</summary>
    public long LastProgress => Volatile.Read(ref _lastProgress);

    /// <summary>The order it was accepted in, which breaks ties of <see cref="LastProgress"/> (a clock of 1 to 16 ms steps).</summary>
    public long Sequence { get; }

    /// <summary>Whether it has gone longer without a whole line than <paramref name="other"/> (or as long, and came first).</summary>
    public bool IdlerThan(UapiConnection other) =>
        LastProgress < other.LastProgress || (LastProgress == other.LastProgress && Sequence < other.Sequence);

    /// <summary>Whether <see cref="Evict"/> has closed (or is closing) it.</summary>
    public bool IsEvicted => _evicted;

    private UapiLimits Limits => _owner.Limits;

    /// <summary>Closes the connection to make room for a new one.</summary>
    public void Evict()
    {
        _evicted = true;
        try
        {
            _cancel.Cancel();
        }
        catch (ObjectDisposedException)
        {
        }
    }

    public async Task ServeAsync()
    {
        using var stream = new NetworkStream(_socket, ownsSocket: true);
        using var reader = new UapiLineReader(stream, Limits.MaxLineBytes);
        var closedFor = await ServeRequestsAsync(reader, stream).ConfigureAwait(false);

        // Counted before the socket closes, so whoever sees the close also sees the count.
        if (closedFor != UapiRefusal.None)
        {
            _owner.Counters.Count(closedFor);
            TunnelLog.ControlConnectionClosed(_owner.Logger, _owner.InterfaceName, closedFor.ToString());
        }
    }

    public void Dispose()
    {
        _socket.Dispose();
        _cancel.Dispose();
    }

    private async Task<UapiRefusal> ServeRequestsAsync(UapiLineReader reader, NetworkStream stream)
    {
        try
        {
            UapiRefusal? closedFor;
            while ((closedFor = await ServeOneAsync(reader, stream).ConfigureAwait(false)) is null)
            {
            }

            return closedFor.Value;
        }
        catch (OperationCanceledException) when (!_owner.Stopping.IsCancellationRequested)
        {
            return _evicted ? UapiRefusal.Evicted : _timeoutReason;
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // The client went away (or the socket is stopping): only its connection ends.
            return UapiRefusal.None;
        }
    }

    /// <summary>
    /// Answers one request; null to go on with the next, or why the connection ends, to be counted
    /// (<see cref="UapiRefusal.None"/> for a plain end or a refusal already counted).
    /// </summary>
    private async Task<UapiRefusal?> ServeOneAsync(UapiLineReader reader, NetworkStream stream)
    {
        _requestDeadline = long.MaxValue;
        var status = await ReadLineAsync(reader).ConfigureAwait(false);
        if (status != UapiLineStatus.Line)
        {
            return status == UapiLineStatus.End ? UapiRefusal.None : UapiRefusal.UnknownOperation;
        }

        _requestDeadline = Environment.TickCount64 + (long)Limits.RequestTimeout.TotalMilliseconds;
        if (reader.Line.SequenceEqual("get=1"u8))
        {
            return await ServeGetAsync(reader, stream).ConfigureAwait(false);
        }

        if (reader.Line.SequenceEqual("set=1"u8))
        {
            return await ServeSetAsync(reader, stream).ConfigureAwait(false);
        }

        if (reader.Line.SequenceEqual(UapiSalvoWriter.Request))
        {
            return await ServeSalvoGetAsync(reader, stream).ConfigureAwait(false);
        }

        // Not an operation of the protocol: wireguard-go closes the connection too.
        return UapiRefusal.UnknownOperation;
    }

    private async Task<UapiRefusal?> ServeGetAsync(UapiLineReader reader, NetworkStream stream)
    {
        if (await ReadGetEndAsync(reader, stream, "get=1").ConfigureAwait(false) is { } refused)
        {
            return refused;
        }

        // Written a page at a time as it is formatted, from peers taken a page at a time: a million-peer answer (about
        // 300 MB of text) is never held whole, and the whole answer still has to go out within the request timeout.
        _timeoutReason = UapiRefusal.RequestTimeout;
        _cancel.CancelAfter(Limits.RequestTimeout);
        var answer = new ArrayBufferWriter<byte>(AnswerChunkBytes);
        var engine = _owner.Device.Engine;
        var peers = UapiGetWriter.WriteDevice(answer, _owner.Device);
        for (var start = 0; start < peers.Length; start += UapiGetWriter.PageSize)
        {
            engine.WriteControlPeers(peers, start, UapiGetWriter.PageSize, answer);
            if (answer.WrittenCount >= AnswerChunkBytes)
            {
                await stream.WriteAsync(answer.WrittenMemory, _cancel.Token).ConfigureAwait(false);
                answer.ResetWrittenCount();
            }
        }

        "errno=0\n\n"u8.CopyTo(answer.GetSpan(9));
        answer.Advance(9);
        await stream.WriteAsync(answer.WrittenMemory, _cancel.Token).ConfigureAwait(false);
        _cancel.CancelAfter(Timeout.InfiniteTimeSpan);
        return null;
    }

    /// <summary>
    /// Reads the empty line that ends a get; null when it came, else how the connection ends. The request is the get
    /// line and an empty line; anything else there is refused as wireguard-go refuses it.
    /// </summary>
    private async Task<UapiRefusal?> ReadGetEndAsync(UapiLineReader reader, NetworkStream stream, string operation)
    {
        var status = await ReadLineAsync(reader).ConfigureAwait(false);
        if (status == UapiLineStatus.End)
        {
            return UapiRefusal.Incomplete;
        }

        if (status != UapiLineStatus.Line || !reader.Line.IsEmpty)
        {
            _owner.Refuse(UapiErrno.Invalid, UapiRefusal.Invalid, operation + " must be followed by an empty line");
            await AnswerAsync(stream, new StringBuilder("errno=-22\n\n")).ConfigureAwait(false);
            return UapiRefusal.None;
        }

        return null;
    }

    /// <summary>
    /// Salvo's own counters (<see cref="UapiSalvoWriter"/>), about 100 bytes a peer, written as <c>get=1</c> is: the
    /// peers' statuses taken a page at a time and the text sent whenever it reaches a chunk, so a connection holds a
    /// chunk and a page however many peers there are and however slowly its client reads.
    /// </summary>
    private async Task<UapiRefusal?> ServeSalvoGetAsync(UapiLineReader reader, NetworkStream stream)
    {
        if (await ReadGetEndAsync(reader, stream, "get=salvo").ConfigureAwait(false) is { } refused)
        {
            return refused;
        }

        _timeoutReason = UapiRefusal.RequestTimeout;
        _cancel.CancelAfter(Limits.RequestTimeout);
        var engine = _owner.Device.Engine;
        var answer = new StringBuilder();
        var peers = UapiSalvoWriter.WriteDevice(answer, engine);
        var page = new List<PeerStatus>(UapiGetWriter.PageSize);
        for (var start = 0; start < peers.Length; start += UapiGetWriter.PageSize)
        {
            page.Clear();
            engine.GetPeerStatuses(peers, start, UapiGetWriter.PageSize, page);
            foreach (var peer in page)
            {
                UapiSalvoWriter.WritePeer(answer, peer);
                if (answer.Length >= AnswerChunkBytes)
                {
                    await WritePiecesAsync(stream, answer).ConfigureAwait(false);
                    answer.Clear();
                }
            }
        }

        answer.Append("errno=0\n\n");
        await WritePiecesAsync(stream, answer).ConfigureAwait(false);
        _cancel.CancelAfter(Timeout.InfiniteTimeSpan);
        return null;
    }

    private async Task<UapiRefusal?> ServeSetAsync(UapiLineReader reader, NetworkStream stream)
    {
        var parser = new UapiSetParser(Limits);
        var start = reader.BytesRead;
        var holdsTurn = false;
        var paused = false;
        try
        {
            while (true)
            {
                var status = await ReadLineAsync(reader).ConfigureAwait(false);
                if (status == UapiLineStatus.End)
                {
                    // Cut off before its blank line: nothing is applied and nothing answered (wireguard-go applies
                    // the lines it read and answers errno=0; see docs/tunnel.md).
                    return UapiRefusal.Incomplete;
                }

                if (status == UapiLineStatus.TooLong)
                {
                    return await RefuseAndCloseAsync(stream, UapiErrno.IO, UapiRefusal.LineTooLong, $"a line is longer than {Limits.MaxLineBytes} bytes").ConfigureAwait(false);
                }

                if (IsBlank(reader.Line))
                {
                    break;
                }

                var size = reader.BytesRead - start;
                if (size > Limits.MaxRequestBytes)
                {
                    return await RefuseAndCloseAsync(stream, UapiErrno.TooLarge, UapiRefusal.RequestTooLarge, $"the request is larger than {Limits.MaxRequestBytes} bytes").ConfigureAwait(false);
                }

                if (!holdsTurn && size > Limits.LargeRequestBytes)
                {
                    // The line read last is still to be parsed: taken before the buffer moves.
                    AddLine(parser, reader.Line);
                    await WaitForTurnAsync().ConfigureAwait(false);
                    holdsTurn = true;
                    reader.Grow(UapiLineReader.LargeBufferBytes);
                    continue;
                }

                if (holdsTurn && !paused && size > GiveBackAfterBytes)
                {
                    // Past about 40,000 peers: the rest is read and applied without collections (CollectorPause).
                    paused = CollectorPause.TryStart();
                }

                AddLine(parser, reader.Line);
            }

            var errno = parser.Errno;
            if (errno != UapiErrno.None)
            {
                _owner.Refuse(errno, parser.Refusal, parser.Error ?? "refused");
            }
            else
            {
                errno = _owner.Apply(parser.Change);
            }

            if (paused)
            {
                CollectorPause.End();
                paused = false;
            }

            await AnswerAsync(stream, new StringBuilder("errno=").Append(errno).Append("\n\n")).ConfigureAwait(false);
            if (reader.BytesRead - start > GiveBackAfterBytes)
            {
                // Measured at 100,000 peers: RSS 1,269 bytes a peer after wg setconf without this; the pause (one full
                // compacting collection) comes once per such request.
                parser = null!;
                GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
            }

            return null;
        }
        finally
        {
            if (paused)
            {
                CollectorPause.End();
            }

            if (holdsTurn)
            {
                _owner.LargeRequests.Release();
            }
        }
    }

    /// <summary>The blank line that ends a set; like bufio.ScanLines (wireguard-go's reader), a '\r' before '\n' is dropped.</summary>
    private static bool IsBlank(ReadOnlySpan<byte> line) => line.IsEmpty || line is [(byte)'\r'];

    private static void AddLine(UapiSetParser parser, ReadOnlySpan<byte> line)
    {
        if (line is [.., (byte)'\r'])
        {
            line = line[..^1];
        }

        // Latin-1 maps each byte to one char, so a byte outside ASCII is a char no value's syntax accepts.
        Span<char> text = stackalloc char[line.Length];
        Encoding.Latin1.GetChars(line, text);
        parser.Add(text);
    }

    private async Task<UapiRefusal?> RefuseAndCloseAsync(NetworkStream stream, int errno, UapiRefusal reason, string error)
    {
        _owner.Refuse(errno, reason, error);
        await AnswerAsync(stream, new StringBuilder("errno=").Append(errno).Append("\n\n")).ConfigureAwait(false);
        return UapiRefusal.None;
    }

    /// <summary>Reads a line, closing the connection if none comes within the idle timeout or the request's deadline.</summary>
    private async ValueTask<UapiLineStatus> ReadLineAsync(UapiLineReader reader)
    {
        // A line already in the buffer arrived whole: no timer to arm (a 10,000-peer set is 60,000 lines).
        if (reader.TryReadBuffered(out var buffered))
        {
            if (buffered == UapiLineStatus.Line)
            {
                Volatile.Write(ref _lastProgress, Environment.TickCount64);
            }

            return buffered;
        }

        var idle = (long)Limits.IdleTimeout.TotalMilliseconds;
        var left = _requestDeadline - Environment.TickCount64;
        _timeoutReason = left < idle ? UapiRefusal.RequestTimeout : UapiRefusal.IdleTimeout;
        _cancel.CancelAfter(TimeSpan.FromMilliseconds(Math.Max(1, Math.Min(idle, left))));
        var status = await reader.ReadLineAsync(_cancel.Token).ConfigureAwait(false);
        _cancel.CancelAfter(Timeout.InfiniteTimeSpan);
        if (status == UapiLineStatus.Line)
        {
            Volatile.Write(ref _lastProgress, Environment.TickCount64);
        }

        return status;
    }

    private async Task WaitForTurnAsync()
    {
        _timeoutReason = UapiRefusal.RequestTimeout;
        _cancel.CancelAfter(TimeSpan.FromMilliseconds(Math.Max(1, _requestDeadline - Environment.TickCount64)));
        await _owner.LargeRequests.WaitAsync(_cancel.Token).ConfigureAwait(false);
        _cancel.CancelAfter(Timeout.InfiniteTimeSpan);
    }

    /// <summary>Writes <paramref name="answer"/> within the request timeout.</summary>
    private async Task AnswerAsync(NetworkStream stream, StringBuilder answer)
    {
        _timeoutReason = UapiRefusal.RequestTimeout;
        _cancel.CancelAfter(Limits.RequestTimeout);
        await WritePiecesAsync(stream, answer).ConfigureAwait(false);
        _cancel.CancelAfter(Timeout.InfiniteTimeSpan);
    }

    /// <summary>Writes <paramref name="answer"/> in pooled pieces; the caller has armed the timeout.</summary>
    private async Task WritePiecesAsync(NetworkStream stream, StringBuilder answer)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(AnswerChunkBytes);
        try
        {
            foreach (var chunk in answer.GetChunks())
            {
                for (var offset = 0; offset < chunk.Length; offset += AnswerChunkBytes)
                {
                    var piece = chunk.Slice(offset, Math.Min(AnswerChunkBytes, chunk.Length - offset));
                    var bytes = Encoding.ASCII.GetBytes(piece.Span, buffer);
                    await stream.WriteAsync(buffer.AsMemory(0, bytes), _cancel.Token).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
