using System.Net.Sockets;
using System.Threading.Channels;

namespace Salvo.Perf.Sockperf;

/// <summary>
/// Accepts on <c>salvo server</c>'s TCP port and looks at each connection's first bytes (MSG_PEEK, so
/// nothing is consumed): a sockperf client is served on its own task, anything else is handed, untouched,
/// to the control loop through <see cref="AcceptAsync"/>. Each connection is sorted on its own task
/// because a sockperf 3.7 TCP client connects and then waits 2 s before its first message (seen on the
/// wire), which must not hold up the next client.
/// </summary>
internal sealed class SockperfTcpDiverter : IDisposable
{
    /// <summary>How long a connection may stay silent before it goes to the control loop anyway (which then times it out).</summary>
    private static readonly TimeSpan SortTimeout = TimeSpan.FromSeconds(10);

    /// <summary>Between peeks while fewer than a header's bytes have arrived.</summary>
    private static readonly TimeSpan PeekRetry = TimeSpan.FromMilliseconds(10);

    private readonly Socket _listener;
    private readonly SockperfService _service;
    private readonly CancellationTokenSource _stop;
    private readonly Channel<Socket> _others = Channel.CreateBounded<Socket>(4);
    private readonly Task _acceptLoop;

    public SockperfTcpDiverter(Socket listener, SockperfService service, CancellationToken cancellationToken)
    {
        _listener = listener;
        _service = service;
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        _acceptLoop = Task.Run(AcceptLoopAsync, CancellationToken.None);
    }

    /// <summary>The next connection that is not sockperf's.</summary>
    /// <exception cref="OperationCanceledException">The server is stopping.</exception>
    public async Task<Socket> AcceptAsync(CancellationToken cancellationToken)
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
        while (_others.Reader.TryRead(out var socket))
        {
            socket.Dispose();
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
                _ = Task.Run(() => SortAsync(socket), CancellationToken.None);
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

    private async Task SortAsync(Socket socket)
    {
        try
        {
            if (await IsSockperfAsync(socket).ConfigureAwait(false))
            {
                await SockperfTcpConnection.ServeAsync(socket, _service, _stop.Token).ConfigureAwait(false);
                return;
            }

            await _others.Writer.WriteAsync(socket, _stop.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException or ChannelClosedException)
        {
            socket.Dispose();
        }
    }

    private async Task<bool> IsSockperfAsync(Socket socket)
    {
        var first = new byte[SockperfHeader.Size];
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token);
        deadline.CancelAfter(SortTimeout);
        try
        {
            while (true)
            {
                var peeked = await socket.ReceiveAsync(first, SocketFlags.Peek, deadline.Token).ConfigureAwait(false);
                switch (SockperfServerRules.Sniff(first.AsSpan(0, peeked)))
                {
                    case SockperfSniff.Sockperf:
                        return true;
                    case SockperfSniff.Other:
                        return false;
                }

                if (peeked == 0)
                {
                    return false;
                }

                await Task.Delay(PeekRetry, deadline.Token).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (!_stop.IsCancellationRequested)
        {
            return false;
        }
    }
}
