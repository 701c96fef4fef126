using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>
/// One sockperf client over TCP: the stream is cut into messages by their length field, pong requests
/// are answered in the same order, and a header that cannot be sockperf's (unknown flags, a length below
/// 14 or above 65,507 bytes) closes this connection only, counted and logged, as sockperf's server does
/// with an oversized one. Buffers are bounded: two messages' worth to receive, as much to send. A connection
/// that makes no progress for the service's idle timeout (nothing received, or its answers not read) is
/// closed, and one past the service's connection cap is refused, both counted and logged: without them 349
/// silent clients held about 9 KB each for good.
/// </summary>
internal sealed class SockperfTcpConnection
{
    private const int BufferBytes = 2 * SockperfHeader.MaxMessage;

    private readonly Socket _socket;
    private readonly SockperfService _service;
    private readonly byte[] _received = GC.AllocateUninitializedArray<byte>(BufferBytes);
    private readonly byte[] _replies = GC.AllocateUninitializedArray<byte>(BufferBytes);
    private int _receivedBytes;
    private int _replyBytes;
    private bool _flushing;

    private SockperfTcpConnection(Socket socket, SockperfService service)
    {
        _socket = socket;
        _service = service;
    }

    /// <summary>Serves <paramref name="socket"/> until the client closes it, goes idle, or the server stops; never throws.</summary>
    public static async Task ServeAsync(Socket socket, SockperfService service, CancellationToken cancellationToken)
    {
        var remote = socket.RemoteEndPoint as IPEndPoint;
        if (service.TryOpenConnection() is not { } counters)
        {
            service.RefusalNote.Write($"salvo server: sockperf TCP client {remote} refused: {Format.Count(service.MaxConnections)} sockperf TCP connections are open " +
                "(--sockperf-max-connections)");
            socket.Dispose();
            return;
        }

        service.Console.Note($"salvo server: sockperf TCP client {remote}");
        var reason = "failed";
        try
        {
            socket.NoDelay = true;
            using var progress = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            reason = await new SockperfTcpConnection(socket, service).RunAsync(counters, progress, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is SocketException or IOException)
        {
            // A client that exits with an answer still unread in its socket resets the connection instead of
            // closing it (RFC 1122 4.2.2.13); sockperf's client does so at the end of every timed run.
            reason = $"ended the connection ({(e as SocketException)?.SocketErrorCode.ToString() ?? e.Message})";
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
        {
            reason = "was closed: the server is stopping";
        }
        finally
        {
            var totals = counters.Read();
            service.Console.Note($"salvo server: sockperf TCP client {remote} {reason}: {Format.Count(totals.Messages)} messages, {Format.Count(totals.Replies)} replies");
            service.CloseConnection(counters);
            socket.Dispose();
        }
    }

    /// <summary>
    /// Serves until the end; <paramref name="progress"/> (linked to <paramref name="stop"/>) is re-armed with the
    /// idle timeout before every receive and every flush, so it fires only when one of them made no progress.
    /// </summary>
    private async Task<string> RunAsync(SockperfCounters counters, CancellationTokenSource progress, CancellationToken stop)
    {
        try
        {
            return await ExchangeAsync(counters, progress).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!stop.IsCancellationRequested)
        {
            _service.CountIdleClose();
            return $"closed: {(_flushing ? "its answers went unread" : "nothing received")} for {Format.Fixed(_service.IdleTimeout.TotalSeconds, 0)} s (--sockperf-idle-timeout)";
        }
    }

    private async Task<string> ExchangeAsync(SockperfCounters counters, CancellationTokenSource progress)
    {
        var cancellationToken = progress.Token;
        while (true)
        {
            Arm(progress);
            var read = await _socket.ReceiveAsync(_received.AsMemory(_receivedBytes), SocketFlags.None, cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                return "closed the connection";
            }

            _receivedBytes += read;
            var consumed = 0;
            while (true)
            {
                var error = SockperfHeader.TryRead(_received.AsSpan(consumed, _receivedBytes - consumed), out var header);
                if (error == SockperfHeaderError.TooShort || (error == SockperfHeaderError.None && _receivedBytes - consumed < header.Length))
                {
                    break;
                }

                if (error != SockperfHeaderError.None)
                {
                    counters.Record(SockperfVerdict.Malformed);
                    Arm(progress);
                    await FlushAsync(cancellationToken).ConfigureAwait(false);
                    return $"dropped: bad sockperf header ({error})";
                }

                var verdict = SockperfServerRules.Decide(header);
                if (verdict == SockperfVerdict.Reply)
                {
                    if (_replyBytes + header.Length > _replies.Length)
                    {
                        Arm(progress);
                        await FlushAsync(cancellationToken).ConfigureAwait(false);
                    }

                    SockperfServerRules.WriteReply(_received.AsSpan(consumed, header.Length), _replies.AsSpan(_replyBytes));
                    _replyBytes += header.Length;
                }

                counters.Record(verdict);
                consumed += header.Length;
            }

            _received.AsSpan(consumed, _receivedBytes - consumed).CopyTo(_received);
            _receivedBytes -= consumed;
            Arm(progress);
            await FlushAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Restarts the idle timer (Timer.Change underneath: no allocation per message).</summary>
    private void Arm(CancellationTokenSource progress)
    {
        if (_service.IdleTimeout > TimeSpan.Zero)
        {
            progress.CancelAfter(_service.IdleTimeout);
        }
    }

    private async Task FlushAsync(CancellationToken cancellationToken)
    {
        _flushing = true;
        for (var sent = 0; sent < _replyBytes;)
        {
            sent += await _socket.SendAsync(_replies.AsMemory(sent, _replyBytes - sent), SocketFlags.None, cancellationToken).ConfigureAwait(false);
        }

        _replyBytes = 0;
        _flushing = false;
    }
}
