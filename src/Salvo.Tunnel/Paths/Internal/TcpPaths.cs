using System.Buffers;
using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using Salvo.Streams;

namespace Salvo.Tunnel.Paths;

/// <summary>
/// The tunnel's TCP side: a listener on the port number of the UDP socket, the connections this end opens, and the
/// WireGuard messages both carry, one per length-prefixed frame (<see cref="LengthPrefixFramer"/>). Each received
/// frame goes to the engine as a datagram from the connection's <see cref="TcpPathAddress"/>. A connection accepted from
/// the network is a stranger until the engine authenticates a message on it, held to the budget of
/// <see cref="UnauthenticatedConnections{T}"/>, so that connections which never authenticate cannot take the places a
/// peer's connection needs.
/// </summary>
internal sealed class TcpPaths : ITcpPathConnector, IStreamHandler, IDisposable
{
    /// <summary>
    /// Bytes a connection may have queued before messages are dropped, as a full UDP socket buffer drops them: the
    /// connections inside the tunnel then slow down instead of queueing seconds of data behind the outer one.
    /// </summary>
    private const int SendQueueBytes = 512 * 1024;

    // SpinWait spins about 10 times before it yields and sleeps: 20 bound the wait for the other sender to a few milliseconds.
    private const int SendAttempts = 20;

    // A sixteenth of the deadline: a stranger is closed at most half a second late.
    private static readonly TimeSpan SweepInterval = TimeSpan.FromMilliseconds(500);

    private readonly TunnelEngine _engine;
    private readonly Func<IBatchedOutput> _createOutput;
    private readonly int _peers;

    // The port of the listener last replaced and its stop in progress; read and written under the device's configuration lock.
    private (int Port, Task? Stopping) _replaced;
    private readonly LengthPrefixFramer _framer;
    private readonly StreamClient _client;
    private readonly ConcurrentDictionary<DatagramAddress, StreamConnection> _connections = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly UnauthenticatedConnections<StreamConnection> _strangers = new(
        UnauthenticatedConnections<StreamConnection>.DefaultPerSource,
        UnauthenticatedConnections<StreamConnection>.DefaultTotal,
        UnauthenticatedConnections<StreamConnection>.DefaultDeadline);
    private readonly List<StreamConnection> _expired = [];
    private readonly Timer? _sweep;
    private Listener? _listener;
    private volatile uint _mark;
    private long _nextId;
    private long _sendDrops;

    /// <summary>
    /// A TCP side with no listener yet: the device binds its UDP socket and starts the listener on the same number
    /// together (<see cref="Listen"/>, then <see cref="ReplaceListener"/>), so that a port the kernel picks is free on both.
    /// </summary>
    /// <param name="engine">Where received messages go, and whom dials and closes are reported to.</param>
    /// <param name="maxMessage">The largest WireGuard message a frame may carry; a longer frame ends its connection.</param>
    /// <param name="createOutput">An output for the engine's answers to one connection's messages.</param>
    /// <param name="peers">Peers that may fall back to TCP; 0 opens no listener.</param>
    /// <param name="mark">The firewall mark (SO_MARK) of each connection this end opens; 0 sets none.</param>
    public TcpPaths(TunnelEngine engine, int maxMessage, Func<IBatchedOutput> createOutput, int peers, uint mark)
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
        if (peers > 0)
        {
            _sweep = new Timer(static state => ((TcpPaths)state!).Sweep(), this, SweepInterval, SweepInterval);
        }
    }

    /// <summary>The listening socket, for tests that read its options; null when there is no listener.</summary>
    internal Socket? ListenerSocket => _listener?.Socket;

    /// <summary>
    /// Told of a message whose handling failed unexpectedly (the engine threw): the message is dropped and the
    /// connection reads on, so one message never ends it. Defaults to none.
    /// </summary>
    internal Action<Exception>? MessageFailed { get; init; }

    /// <summary>Connections the listener in use holds now, strangers and those closing included (tests bound it).</summary>
    internal int ListenerConnections => _listener?.Server.ConnectionCount ?? 0;

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

        WaitForReplacedListener(port);

        // The strangers' budget (UnauthenticatedConnections) bounds the live connections; this is a last resort, and it
        // also counts connections still closing, which trail a flood: with 1,000 strangers reopened every second the
        // listener held up to 1,001 while admitting 256, and at 2 x 256 + 20 it refused a peer's connection. Sixteen
        // times the budget, plus a few per peer for both ends dialing at once and a reconnect while the old one closes.
        Socket? socket = null;
        var server = new StreamServer(
            new StreamServerOptions
            {
                EndPoint = new IPEndPoint(Socket.OSSupportsIPv6 ? IPAddress.IPv6Any : IPAddress.Any, port),
                Framer = _framer,
                MaxSendQueueBytes = SendQueueBytes,
                MaxConnections = (16 * _strangers.Total) + 16 + (4 * _peers),
                ConfigureSocket = listener =>
                {
                    socket = listener;
                    Mark(listener, mark);
                },
            },
            new AcceptedConnections(this));
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
        if (old is not null)
        {
            var port = ((IPEndPoint)old.Socket.LocalEndPoint!).Port;
            StopListening(old.Socket);
            _replaced = (port, old.Server.StopAsync());
        }
    }

    /// <summary>
    /// Takes the port out of the listening state now, in this thread: shutdown(2) of a listening socket's receive side
    /// stops the listen (inet_shutdown in net/ipv4/af_inet.c disconnects it) and wakes its pending accept, while the
    /// descriptor itself is released only once the runtime has aborted that accept on another thread, which on a
    /// loaded machine took over 2 s (a change back to the previous port then failed with EADDRINUSE). A port bound by
    /// a socket that no longer listens is free to a new listener: the runtime sets SO_REUSEADDR on every TCP socket
    /// it binds.
    /// </summary>
    private static void StopListening(Socket listener)
    {
        try
        {
            listener.Shutdown(SocketShutdown.Receive);
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            // Already closed, or never listening: the stop that follows closes what is left.
        }
    }

    /// <summary>
    /// Waits (at most 2 s) for the listener last replaced to close when <paramref name="port"/> is its port: its socket
    /// is closed as the stop begins, but the descriptor is released only once the pending accept has been aborted, and
    /// a change back to the previous port within that moment was refused with EADDRINUSE (seen in 1 of 2 loaded runs
    /// of the 100-flip test; wireguard-go closes the old socket before it binds the new one).
    /// </summary>
    private void WaitForReplacedListener(int port)
    {
        var (replacedPort, stopping) = _replaced;
        if (replacedPort != port || stopping is null)
        {
            return;
        }

        try
        {
            stopping.Wait(TimeSpan.FromSeconds(2));
        }
        catch (AggregateException)
        {
            // A stop that failed has closed what it could; the bind says whether the port is free.
        }
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
        if (_connections.TryGetValue(path, out var connection))
        {
            // Two threads send on one connection: the outbound loop, and the receive loop answering on it (a handshake
            // completed there sends the packets staged for it, all in one batch). TrySendBatch refuses while the other
            // holds the send lock, for the microseconds of its enqueue or flush, and 1 to 27 messages were dropped so
            // in about 1 of 13 runs of the TCP fallback device test: wait that out, and drop only for a closed
            // connection or a full queue (backpressure, as a full UDP socket buffer drops).
            var spin = new SpinWait();
            for (var attempt = 0; attempt < SendAttempts; attempt++)
            {
                if (connection.TrySendBatch(messages))
                {
                    return true;
                }

                if (!connection.IsOpen || connection.QueuedSendBytes >= SendQueueBytes)
                {
                    break;
                }

                spin.SpinOnce();
            }
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

    public void Authenticated(DatagramAddress path)
    {
        // Called for every authenticated message that arrives over TCP: one dictionary lookup and a flag read each time;
        // the strangers' budget is touched only once, on the first.
        if (_connections.TryGetValue(path, out var connection) && connection.Tag is ConnectionState { IsStranger: true } state)
        {
            state.IsStranger = false;
            _strangers.Remove(connection);
        }
    }

    /// <summary>A connection this end dialed: no stranger.</summary>
    public void OnConnected(StreamConnection connection) => Opened(connection, stranger: false);

    public ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message)
    {
        // A connection refused as it opened has no state: what it sends before it is gone goes nowhere.
        if (connection.Tag is not ConnectionState state)
        {
            return ValueTask.CompletedTask;
        }

        try
        {
            _engine.ReceiveDatagram(state.Writable(message), state.Address, state.Output);
        }
        catch (Exception e) when (MessageFailed is not null)
        {
            MessageFailed(e);
        }

        return ValueTask.CompletedTask;
    }

    /// <summary>
    /// Sends and writes what the messages of one read produced: one flush for the read, so the packets a read carries
    /// reach the device together (where it joins them into super-packets) and the answers leave in one socket send.
    /// </summary>
    public void OnReadHandled(StreamConnection connection)
    {
        if (connection.Tag is not ConnectionState state)
        {
            return;
        }

        try
        {
            state.Output.Flush();
        }
        catch (Exception e) when (MessageFailed is not null)
        {
            MessageFailed(e);
        }
    }

    public void OnClosed(StreamConnection connection, StreamCloseReason reason)
    {
        if (connection.Tag is ConnectionState state)
        {
            _strangers.Remove(connection);
            _connections.TryRemove(state.Address, out _);
            _engine.OnTcpPathClosed(state.Address);
        }
    }

    public void Dispose()
    {
        _sweep?.Dispose();
        _stop.Cancel();
        // Each waits for its connections' CloseTimeout at most; the tunnel is going down, so bound the whole wait.
        var closing = Task.WhenAll(_client.DisposeAsync().AsTask(), _listener?.Server.StopAsync() ?? Task.CompletedTask);
        closing.Wait(TimeSpan.FromSeconds(2));
        _stop.Dispose();
    }

    private void Opened(StreamConnection connection, bool stranger)
    {
        var address = TcpPathAddress.Create(Interlocked.Increment(ref _nextId));
        connection.Tag = new ConnectionState(address, _createOutput()) { IsStranger = stranger };
        _connections[address] = connection;
    }

    /// <summary>A connection the listener accepted: a stranger, admitted under the budget or refused at once.</summary>
    private void Accepted(StreamConnection connection)
    {
        if (!_strangers.TryAdmit(connection, SourceOf(connection), Environment.TickCount64, out var evicted))
        {
            _engine.RefuseTcpConnection(TunnelDropReason.TcpSourceLimit, SourceOf(connection));
            // Not from inside OnConnected: the connection's loops start after it returns, and close as they find the socket gone.
            ThreadPool.UnsafeQueueUserWorkItem(static refused => refused.Abort(), connection, preferLocal: false);
            return;
        }

        if (evicted is not null)
        {
            _engine.RefuseTcpConnection(TunnelDropReason.TcpUnauthenticatedEvicted, SourceOf(evicted));
            evicted.Abort();
        }

        Opened(connection, stranger: true);
    }

    /// <summary>Closes the strangers that carried no authenticated message within the deadline.</summary>
    private void Sweep()
    {
        // Timer callbacks may overlap when one runs late; the second finds nothing left to take.
        lock (_expired)
        {
            _strangers.TakeExpired(Environment.TickCount64, _expired);
            foreach (var connection in _expired)
            {
                _engine.RefuseTcpConnection(TunnelDropReason.TcpUnauthenticatedTimeout, SourceOf(connection));
                connection.Abort();
            }

            _expired.Clear();
        }
    }

    private static DatagramAddress SourceOf(StreamConnection connection) =>
        DatagramAddress.FromIPEndPoint(connection.RemoteEndPoint as IPEndPoint ?? new IPEndPoint(IPAddress.IPv6None, 0));

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

    /// <summary>The listener's handler: each connection it accepts starts as a stranger.</summary>
    private sealed class AcceptedConnections(TcpPaths paths) : IStreamHandler
    {
        public void OnConnected(StreamConnection connection) => paths.Accepted(connection);

        public ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message) => paths.OnMessageAsync(connection, message);

        public void OnReadHandled(StreamConnection connection) => paths.OnReadHandled(connection);

        public void OnClosed(StreamConnection connection, StreamCloseReason reason) => paths.OnClosed(connection, reason);
    }

    /// <summary>One connection's name, receive buffer and output (the handler runs one message at a time per connection).</summary>
    private sealed class ConnectionState(DatagramAddress address, IBatchedOutput output)
    {
        /// <summary>For a message split between two receive blocks: room for one of a 1,420-byte MTU; longer ones grow it.</summary>
        private byte[] _buffer = new byte[2048];

        private bool _isStranger;

        public DatagramAddress Address { get; } = address;

        public IBatchedOutput Output { get; } = output;

        /// <summary>
        /// The message as a span the engine may decrypt in place: the connection's own receive block when the message
        /// lies in one (the usual case; the block is the connection's until the handler returns and is never read
        /// again), otherwise a copy in this state's buffer, grown for a longer message (never past the framer's limit).
        /// </summary>
        public Span<byte> Writable(in ReadOnlySequence<byte> message)
        {
            if (message.IsSingleSegment)
            {
                return System.Runtime.InteropServices.MemoryMarshal.AsMemory(message.First).Span;
            }

            var length = (int)message.Length;
            if (length > _buffer.Length)
            {
                _buffer = new byte[length];
            }

            var buffer = _buffer.AsSpan(0, length);
            message.CopyTo(buffer);
            return buffer;
        }

        /// <summary>Accepted and not yet authenticated: still under the strangers' budget.</summary>
        public bool IsStranger
        {
            get => Volatile.Read(ref _isStranger);
            set => Volatile.Write(ref _isStranger, value);
        }
    }
}
