using System.Net;
using System.Net.Sockets;

namespace Salvo.Streams;

/// <summary>
/// Keeping a TCP transport connected: when the connection in use closes, say so at once and open it again on a bounded
/// back-off (<see cref="MessageTransportOptions.TcpReconnect"/>), until it is back, the transport moves to UDP, or it is
/// disposed. Messages sent meanwhile are refused (<see cref="SendAsync"/> returns false), never queued on a dead connection.
/// </summary>
public sealed partial class MessageTransport
{
    /// <summary>
    /// Raised, on a thread-pool thread, as soon as the TCP connection in use closes, with the reason and whether it is being
    /// opened again. Not raised when the transport itself closes the connection (moving to UDP, or disposed).
    /// </summary>
    public event EventHandler<TcpConnectionClosedEventArgs>? TcpConnectionClosed;

    /// <summary>Raised, on a thread-pool thread, when a TCP connection that closed is open again and takes messages.</summary>
    public event EventHandler<TcpConnectionReopenedEventArgs>? TcpConnectionReopened;

    /// <summary>Watches the connection in use; each time it closes while still in use, reports it and (unless off) opens another.</summary>
    private async Task KeepTcpAsync(StreamClient client, StreamConnection connection, IPEndPoint remote)
    {
        var token = _stopping.Token;
        try
        {
            while (true)
            {
                await WaitUntilClosingAsync(connection, token).ConfigureAwait(false);
                if (!IsInUse(client))
                {
                    return;
                }

                var lostAt = _options.TimeProvider.GetTimestamp();
                TransportLog.TcpClosed(_logger, remote, connection.CloseReason, _options.TcpReconnect);
                Raise(TcpConnectionClosed, new TcpConnectionClosedEventArgs(connection.CloseReason, _options.TcpReconnect), nameof(TcpConnectionClosed));
                if (!_options.TcpReconnect)
                {
                    return;
                }

                var (reopened, attempts) = await ReconnectAsync(client, remote, token).ConfigureAwait(false);
                if (reopened is null)
                {
                    return;
                }

                connection = reopened;
                _counters.OnTcpReconnected();
                var downtime = _options.TimeProvider.GetElapsedTime(lostAt);
                TransportLog.TcpReopened(_logger, remote, attempts, downtime.TotalMilliseconds);
                Raise(TcpConnectionReopened, new TcpConnectionReopenedEventArgs(attempts, downtime), nameof(TcpConnectionReopened));
            }
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
        {
            // Disposed, or the client closed by a move to UDP: nothing to keep.
        }
    }

    /// <summary>
    /// Returns as soon as the connection starts closing, for whatever reason: its graceful close may then take up to
    /// <see cref="StreamOptions.CloseTimeout"/> more, which the caller need not wait for to learn of it.
    /// </summary>
    private static async Task WaitUntilClosingAsync(StreamConnection connection, CancellationToken stopping)
    {
        using var either = CancellationTokenSource.CreateLinkedTokenSource(connection.ClosingToken, stopping);
        try
        {
            await Task.Delay(Timeout.Infinite, either.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!stopping.IsCancellationRequested)
        {
            // The connection is closing: CloseReason is set before ClosingToken is cancelled.
        }
    }

    /// <summary>Connects again on the back-off; returns the new connection (now in use), or null once the client is no longer in use.</summary>
    private async Task<(StreamConnection? Connection, int Attempts)> ReconnectAsync(StreamClient client, IPEndPoint remote, CancellationToken token)
    {
        var schedule = new UdpProbeSchedule(_options.TcpReconnectBackoff, Random.Shared);
        for (var attempt = 1; ; attempt++)
        {
            await Task.Delay(schedule.Next(), _options.TimeProvider, token).ConfigureAwait(false);
            if (!IsInUse(client))
            {
                return (null, attempt - 1);
            }

            try
            {
                var connection = await client.ConnectAsync(remote, cancellationToken: token).ConfigureAwait(false);
                _tcp = connection;
                // A move to UDP or a dispose between the connect and here closes the client, and this connection with it.
                return IsInUse(client) ? (connection, attempt) : (null, attempt);
            }
            catch (Exception e) when (e is SocketException or TimeoutException)
            {
                TransportLog.TcpReconnectFailed(_logger, remote, attempt, e.Message);
            }
        }
    }

    /// <summary>Whether <paramref name="client"/> still carries the transport's messages: not disposed, on TCP, and not closed for a move to UDP.</summary>
    private bool IsInUse(StreamClient client) =>
        Volatile.Read(ref _disposed) == 0 && Transport == TransportKind.Tcp && ReferenceEquals(Volatile.Read(ref _tcpClient), client);

    /// <summary>Raises a connection event; a handler that throws is logged, as there is no caller to hand its exception to.</summary>
    private void Raise<T>(EventHandler<T>? handler, T args, string name)
    {
        try
        {
            handler?.Invoke(this, args);
        }
        catch (Exception e)
        {
            TransportLog.EventHandlerFailed(_logger, RemoteEndPoint!, name, e);
        }
    }
}
