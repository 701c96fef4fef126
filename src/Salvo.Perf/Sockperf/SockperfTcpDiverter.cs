using System.Net.Sockets;
using System.Threading.Channels;
using Salvo.Perf.Traffic;

namespace Salvo.Perf.Sockperf;

/// <summary>
/// Accepts on <c>salvo server</c>'s TCP port and looks at each connection's first bytes (MSG_PEEK, so
/// nothing is consumed): a sockperf client is served on its own task, anything else is handed, untouched,
/// to the control loop through <see cref="AcceptAsync"/> with what its first byte says it is (Salvo, iperf3, or
/// silent), so that loop neither peeks again nor waits a second time for a peer that sends nothing. Each connection is sorted on its own task
/// because a sockperf 3.7 TCP client connects and then waits 2 s before its first message (seen on the
/// wire), which must not hold up the next client.
/// </summary>
internal sealed class SockperfTcpDiverter : IDisposable
{
    /// <summary>How long a connection may stay silent before it goes to the control loop as <see cref="ControlClientKind.Silent"/>.</summary>
    public static readonly TimeSpan SortTimeout = TimeSpan.FromSeconds(10);

    /// <summary>Between peeks while fewer than a header's bytes have arrived.</summary>
    private static readonly TimeSpan PeekRetry = TimeSpan.FromMilliseconds(10);

    private readonly Socket _listener;
    private readonly SockperfService _service;
    private readonly CancellationTokenSource _stop;
    private readonly Channel<(Socket Socket, ControlClientKind Kind)> _others = Channel.CreateBounded<(Socket, ControlClientKind)>(4);
    private readonly Task _acceptLoop;

    public SockperfTcpDiverter(Socket listener, SockperfService service, CancellationToken cancellationToken)
    {
        _listener = listener;
        _service = service;
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        _acceptLoop = Task.Run(AcceptLoopAsync, CancellationToken.None);
    }

    /// <summary>The next connection that is not sockperf's, and who opened it.</summary>
    /// <exception cref="OperationCanceledException">The server is stopping.</exception>
    public async Task<(Socket Socket, ControlClientKind Kind)> AcceptAsync(CancellationToken cancellationToken)
    {
        try
        {
            return await _others.Reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (ChannelClosedException e)
        {
            throw new OperationCanceledException("The listener stopped.", e, cancellationToken);
        }
    }

    public void Dispose()
    {
        _stop.Cancel();
        _acceptLoop.Wait(TimeSpan.FromSeconds(5));
        while (_others.Reader.TryRead(out var other))
        {
            other.Socket.Dispose();
        }

        _stop.Dispose();
    }

    private async Task AcceptLoopAsync()
    {
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                var socket = await _listener.AcceptAsync(_stop.Token).ConfigureAwait(false);
                _ = Task.Run(() => HandOnAsync(socket), CancellationToken.None);
            }
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
        {
            // Stopping, or the listener closed under us.
        }
        finally
        {
            _others.Writer.TryComplete();
        }
    }

    private async Task HandOnAsync(Socket socket)
    {
        try
        {
            var kind = await SortAsync(socket, _stop.Token).ConfigureAwait(false);
            if (kind is null)
            {
                await SockperfTcpConnection.ServeAsync(socket, _service, _stop.Token).ConfigureAwait(false);
                return;
            }

            await _others.Writer.WriteAsync((socket, kind.Value), _stop.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException or ChannelClosedException)
        {
            socket.Dispose();
        }
    }

    /// <summary>Null for a sockperf client, else who opened the connection.</summary>
    private static async Task<ControlClientKind?> SortAsync(Socket socket, CancellationToken stop)
    {
        var first = new byte[SockperfHeader.Size];
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(stop);
        deadline.CancelAfter(SortTimeout);
        try
        {
            while (true)
            {
                var peeked = await socket.ReceiveAsync(first, SocketFlags.Peek, deadline.Token).ConfigureAwait(false);
                switch (SockperfServerRules.Sniff(first.AsSpan(0, peeked)))
                {
                    case SockperfSniff.Sockperf:
                        return null;
                    case SockperfSniff.Other:
                        return Iperf3.Iperf3Cookie.CanStart(first[0]) ? ControlClientKind.Iperf3 : ControlClientKind.Salvo;
                }

                if (peeked == 0)
                {
                    // Closed before a byte: the control loop reads the end of the stream at once and says so.
                    return ControlClientKind.Salvo;
                }

                await Task.Delay(PeekRetry, deadline.Token).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (!stop.IsCancellationRequested)
        {
            return ControlClientKind.Silent;
        }
    }
}
