using System.Net;
using System.Net.Sockets;
using Salvo.Buffers;
using Salvo.Internal;
using Salvo.Pal;

namespace Salvo.Streams;

/// <summary>
/// Accepts framed TCP connections and hands their messages to an <see cref="IStreamHandler"/>. One accept loop;
/// each connection is two pipes and two async loops, with no thread, timer or buffer of its own while idle.
/// </summary>
/// <example>
/// <code>
/// await using var server = new StreamServer(new StreamServerOptions { EndPoint = new(IPAddress.Loopback, 7008) },
///     StreamHandler.Create(async (connection, message) => await connection.SendAsync(message.ToArray())));
/// server.Start();
/// </code>
/// </example>
public sealed class StreamServer : IAsyncDisposable
{
    private readonly StreamServerOptions _options;
    private readonly StreamHost _host;
    private Socket? _listener;
    private Task _acceptLoop = Task.CompletedTask;
    private int _stopped;

    /// <summary>Creates a server; <see cref="Start"/> opens the port.</summary>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    public StreamServer(StreamServerOptions options, IStreamHandler handler)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options;
        _host = new StreamHost(options, handler);
    }

    /// <summary>The bound address and port (the actual port when 0 was asked for); null before <see cref="Start"/>.</summary>
    public IPEndPoint? LocalEndPoint { get; private set; }

    /// <summary>Connections open now.</summary>
    public int ConnectionCount => _host.ConnectionCount;

    /// <summary>The open connections (a live view: connections opened or closed while enumerating may or may not appear), for pushing to all of them.</summary>
    public IEnumerable<StreamConnection> Connections => _host.Connections;

    /// <summary>The pool the connections' pipes rent from (see <see cref="PinnedBufferPool.RentedBlocks"/>).</summary>
    public PinnedBufferPool BufferPool => _host.Pool;

    /// <summary>Binds, listens and starts accepting.</summary>
    /// <exception cref="InvalidOperationException">Already started.</exception>
    /// <exception cref="SocketException">The address is in use or cannot be bound.</exception>
    public void Start()
    {
        if (_listener is not null)
        {
            throw new InvalidOperationException("The server is already started.");
        }

        var endPoint = _options.EndPoint;
        var listener = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            if (endPoint.AddressFamily == AddressFamily.InterNetworkV6 && endPoint.Address.Equals(IPAddress.IPv6Any))
            {
                listener.DualMode = true;
            }

            if (_options.ReusePort)
            {
                // Linux only, as StreamServerOptions.ReusePort says; elsewhere the option has no effect.
                _ = Platform.Current.TryEnableReusePort(listener);
            }

            // Set on the listener so that accepted sockets inherit the buffer sizes before the window is negotiated.
            _host.Configure(listener);
            _host.ConfigureSocket?.Invoke(listener);
            NamedBind.Bind(listener, endPoint);
            listener.Listen(_options.Backlog);
        }
        catch
        {
            listener.Dispose();
            throw;
        }

        _listener = listener;
        LocalEndPoint = (IPEndPoint)listener.LocalEndPoint!;
        _acceptLoop = AcceptLoopAsync(listener);
    }

    /// <summary>
    /// Stops accepting, closes every connection gracefully (queued messages go out, each waits at most
    /// <see cref="StreamOptions.CloseTimeout"/>) and waits for them.
    /// </summary>
    /// <param name="cancellationToken">When it fires, connections still closing are dropped at once.</param>
    public async Task StopAsync(CancellationToken cancellationToken = default)
    {
        if (Interlocked.Exchange(ref _stopped, 1) == 1)
        {
            return;
        }

        _listener?.Dispose();
        await _acceptLoop.ConfigureAwait(false);
        await _host.CloseAllAsync(cancellationToken).ConfigureAwait(false);
        _host.Dispose();
    }

    /// <summary>Closes a server that has no connection yet (a port attempt that did not work out), without waiting.</summary>
    internal void Abandon()
    {
        Volatile.Write(ref _stopped, 1);
        _listener?.Dispose();
        _host.Dispose();
    }

    /// <summary>Same as <see cref="StopAsync"/>.</summary>
    public async ValueTask DisposeAsync() => await StopAsync().ConfigureAwait(false);

    private async Task AcceptLoopAsync(Socket listener)
    {
        while (true)
        {
            Socket socket;
            try
            {
                socket = await listener.AcceptAsync().ConfigureAwait(false);
            }
            catch (ObjectDisposedException)
            {
                return;
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.OperationAborted || Volatile.Read(ref _stopped) == 1)
            {
                return;
            }
            catch (SocketException e)
            {
                // Out of descriptors or memory: the backlog keeps the peers waiting; try again shortly rather than spin.
                StreamLog.AcceptFailed(_host.Logger, LocalEndPoint!, e);
                await Task.Delay(50).ConfigureAwait(false);
                continue;
            }

            if (_host.ConnectionCount >= _options.MaxConnections)
            {
                StreamLog.ConnectionLimit(_host.Logger, socket.RemoteEndPoint, _host.ConnectionCount, _options.MaxConnections);
                socket.Dispose();
                continue;
            }

            try
            {
                _host.Configure(socket);
            }
            catch (SocketException e)
            {
                StreamLog.AcceptFailed(_host.Logger, LocalEndPoint!, e);
                socket.Dispose();
                continue;
            }

            // Started on the pool: a connection whose first bytes are already here must not hold up accepting.
            ThreadPool.UnsafeQueueUserWorkItem(static connection => connection.Start(), new StreamConnection(_host, socket), preferLocal: false);
        }
    }
}
