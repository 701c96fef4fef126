using System.Buffers;
using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Salvo.Streams;

namespace Salvo.Tunnel.Paths;

/// <summary>
/// The tunnel's TCP side: a listener on the port number of the UDP socket, the connections this end opens, and the
/// WireGuard messages both carry, one per length-prefixed frame (<see cref="LengthPrefixFramer"/>). Each received
/// frame goes to the engine as a datagram from the connection's <see cref="TcpPathAddress"/>.
/// </summary>
internal sealed class TcpPaths : ITcpPathConnector, IStreamHandler, IDisposable
{
    /// <summary>
    /// Bytes a connection may have queued before messages are dropped, as a full UDP socket buffer drops them: the
    /// connections inside the tunnel then slow down instead of queueing seconds of data behind the outer one.
    /// </summary>
    private const int SendQueueBytes = 512 * 1024;

    private readonly TunnelEngine _engine;
    private readonly Func<IBatchedOutput> _createOutput;
    private readonly int _peers;
    private readonly LengthPrefixFramer _framer;
    private readonly StreamClient _client;
    private readonly ConcurrentDictionary<DatagramAddress, StreamConnection> _connections = new();
    private readonly CancellationTokenSource _stop = new();
    private Listener? _listener;
    private volatile uint _mark;
    private long _nextId;
    private long _sendDrops;

    /// <param name="engine">Where received messages go, and whom dials and closes are reported to.</param>
    /// <param name="port">The UDP socket's port: the listener takes the same number.</param>
    /// <param name="maxMessage">The largest WireGuard message a frame may carry; a longer frame ends its connection.</param>
    /// <param name="createOutput">An output for the engine's answers to one connection's messages.</param>
    /// <param name="logger">Where a listener that cannot start is reported.</param>
    /// <param name="peers">Peers that may fall back to TCP; 0 opens no listener.</param>
    /// <param name="mark">The firewall mark (SO_MARK) of the listener and of each connection this end opens; 0 sets none.</param>
    public TcpPaths(TunnelEngine engine, int port, int maxMessage, Func<IBatchedOutput> createOutput, ILogger logger, int peers, uint mark)
    {
        _engine = engine;
        _createOutput = createOutput;
        _peers = peers;
        _mark = mark;
        _framer = new LengthPrefixFramer(maxMessage);

        // The mark is set before connect: the route is chosen then, and wg-quick's full-tunnel rules send only marked
        // packets around the tunnel (an unmarked connection to the peer would be routed into the tunnel itself).
        _client = new StreamClient(
            new StreamClientOptions
            {
                Framer = _framer,
                MaxSendQueueBytes = SendQueueBytes,
                ConnectTimeout = TimeSpan.FromSeconds(3),
                ConfigureSocket = socket => Mark(socket, _mark),
            },
            this);
        try
        {
            _listener = Listen(port, mark);
        }
        catch (SocketException e)
        {
            // The tunnel still works over UDP; only this end's TCP fallback is missing.
            TunnelLog.TcpListenerFailed(logger, port, e.Message);
        }
    }

    /// <summary>The listening socket, for tests that read its options; null when there is no listener.</summary>
    internal Socket? ListenerSocket => _listener?.Socket;

    /// <summary>
    /// Told of a message whose handling failed unexpectedly (the engine threw): the message is dropped and the
    /// connection reads on, so one message never ends it. Defaults to none.
    /// </summary>
    internal Action<Exception>? MessageFailed { get; init; }

    /// <summary>Sees each socket of the TCP fallback (listeners and the connections this end opens) once marked, before it binds or connects (tests read its mark).</summary>
    internal Action<Socket>? SocketConfigured { get; set; }

    /// <summary>
    /// Starts a listener on <paramref name="port"/> (both address families) with <paramref name="mark"/>, not yet in
    /// use: <see cref="ReplaceListener"/> takes it over, <see cref="Listener.Abandon"/> drops it. Null when no peer may
    /// fall back to TCP.
    /// </summary>
    /// <exception cref="SocketException">The port is taken on TCP, or the kernel refused the mark.</exception>
    public Listener? Listen(int port, uint mark)
    {
        if (_peers == 0)
        {
            return null;
        }

        // Anyone may connect before a message authenticates, and each connection holds about 200 KB of buffers:
        // a few per peer cover both ends dialing at once and a reconnect while the old connection closes.
        Socket? socket = null;
        var server = new StreamServer(
            new StreamServerOptions
            {
                EndPoint = new IPEndPoint(Socket.OSSupportsIPv6 ? IPAddress.IPv6Any : IPAddress.Any, port),
                Framer = _framer,
                MaxSendQueueBytes = SendQueueBytes,
                MaxConnections = 16 + (4 * _peers),
                ConfigureSocket = listener =>
                {
                    socket = listener;
                    Mark(listener, mark);
                },
            },
            this);
        try
        {
            server.Start();
        }
        catch (Exception e) when (e is SocketException or PlatformNotSupportedException)
        {
            // A server that never started has no connection to close, so its stop completes at once.
            server.StopAsync().GetAwaiter().GetResult();
            throw;
        }

        return new Listener(server, socket!);
    }

    /// <summary>
    /// Puts <paramref name="listener"/> (from <see cref="Listen"/>, marked <paramref name="mark"/>) in place of the one
    /// in use, which stops accepting at once, and marks the connections this end opens from now on with
    /// <paramref name="mark"/>. Connections the old listener accepted close gracefully: the peers that dialed them
    /// reach this end again once they learn the new port, as over UDP.
    /// </summary>
    public void ReplaceListener(Listener? listener, uint mark)
    {
        _mark = mark;
        var old = Interlocked.Exchange(ref _listener, listener);
        _ = old?.Server.StopAsync();
    }

    /// <summary>
    /// Sets the mark of the listener in use (connections accepted from now on inherit it) and of each connection this
    /// end opens from now on. Connections open now keep the mark they were opened with: their route was chosen then.
    /// </summary>
    /// <exception cref="SocketException">The kernel refused the mark.</exception>
    public void SetMark(uint mark)
    {
        if (_listener is { } listener)
        {
            Pal.TunnelPlatform.Current.SetSocketMark(listener.Socket, mark);
        }

        _mark = mark;
    }

    /// <summary>Messages dropped because their connection was gone or had <see cref="SendQueueBytes"/> queued.</summary>
    public long SendDrops => Interlocked.Read(ref _sendDrops);

    /// <summary>Queues <paramref name="messages"/> on the connection named <paramref name="path"/>; false when they were dropped.</summary>
    public bool TrySend(DatagramAddress path, ReadOnlySpan<ReadOnlyMemory<byte>> messages)
    {
        if (_connections.TryGetValue(path, out var connection) && connection.TrySendBatch(messages))
        {
            return true;
        }

        Interlocked.Add(ref _sendDrops, messages.Length);
        return false;
    }

    public void Dial(WireGuardKey peer, IPEndPoint endPoint)
    {
        // Not awaited: the engine's lock is held. ConnectAsync creates the socket before its first await, on this thread.
        _ = DialAsync(peer, endPoint);
    }

    public void Close(DatagramAddress path, TimeSpan after)
    {
        if (_connections.TryGetValue(path, out var connection))
        {
            _ = CloseAsync(connection, after);
        }
    }

    public void OnConnected(StreamConnection connection)
    {
        var address = TcpPathAddress.Create(Interlocked.Increment(ref _nextId));
        connection.Tag = new ConnectionState(address, _createOutput());
        _connections[address] = connection;
    }

    public ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message)
    {
        var state = (ConnectionState)connection.Tag!;
        try
        {
            var buffer = state.BufferFor((int)message.Length);
            message.CopyTo(buffer);
            _engine.ReceiveDatagram(buffer, state.Address, state.Output);
            state.Output.Flush();
        }
        catch (Exception e) when (MessageFailed is not null)
        {
            MessageFailed(e);
        }

        return ValueTask.CompletedTask;
    }

    public void OnClosed(StreamConnection connection, StreamCloseReason reason)
    {
        if (connection.Tag is ConnectionState state)
        {
            _connections.TryRemove(state.Address, out _);
            _engine.OnTcpPathClosed(state.Address);
        }
    }

    public void Dispose()
    {
        _stop.Cancel();
        // Each waits for its connections' CloseTimeout at most; the tunnel is going down, so bound the whole wait.
        var closing = Task.WhenAll(_client.DisposeAsync().AsTask(), _listener?.Server.StopAsync() ?? Task.CompletedTask);
        closing.Wait(TimeSpan.FromSeconds(2));
        _stop.Dispose();
    }

    private async Task DialAsync(WireGuardKey peer, IPEndPoint endPoint)
    {
        StreamConnection connection;
        try
        {
            connection = await _client.ConnectAsync(endPoint, cancellationToken: _stop.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is SocketException or TimeoutException or OperationCanceledException or ObjectDisposedException)
        {
            if (!_stop.IsCancellationRequested)
            {
                _engine.OnTcpDialFailed(peer, e.Message);
            }

            return;
        }

        _engine.OnTcpPathOpened(peer, ((ConnectionState)connection.Tag!).Address);
    }

    private async Task CloseAsync(StreamConnection connection, TimeSpan after)
    {
        try
        {
            await Task.Delay(after, _stop.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return;
        }

        await connection.CloseAsync().ConfigureAwait(false);
    }

    private void Mark(Socket socket, uint mark)
    {
        // A new socket has no mark: 0 needs no call (and none on a platform without marks).
        if (mark != 0)
        {
            Pal.TunnelPlatform.Current.SetSocketMark(socket, mark);
        }

        SocketConfigured?.Invoke(socket);
    }

    /// <summary>A started TCP listener and its socket (whose mark a live change sets).</summary>
    internal sealed class Listener(StreamServer server, Socket socket)
    {
        public StreamServer Server { get; } = server;

        public Socket Socket { get; } = socket;

        /// <summary>Closes a listener that never took over; it has no connection yet.</summary>
        public void Abandon() => Server.StopAsync().GetAwaiter().GetResult();
    }

    /// <summary>One connection's name, receive buffer and output (the handler runs one message at a time per connection).</summary>
    private sealed class ConnectionState(DatagramAddress address, IBatchedOutput output)
    {
        /// <summary>Room for a handshake and a transport message of a 1,420-byte MTU; longer messages grow it (never past the framer's limit).</summary>
        private byte[] _buffer = new byte[2048];

        public DatagramAddress Address { get; } = address;

        public IBatchedOutput Output { get; } = output;

        public Span<byte> BufferFor(int length)
        {
            if (length > _buffer.Length)
            {
                _buffer = new byte[length];
            }

            return _buffer.AsSpan(0, length);
        }
    }
}
