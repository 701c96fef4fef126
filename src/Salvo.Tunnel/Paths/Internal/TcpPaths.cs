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
    private readonly int _maxMessage;
    private readonly StreamServer? _server;
    private readonly StreamClient _client;
    private readonly ConcurrentDictionary<DatagramAddress, StreamConnection> _connections = new();
    private readonly CancellationTokenSource _stop = new();
    private long _nextId;
    private long _sendDrops;

    /// <param name="engine">Where received messages go, and whom dials and closes are reported to.</param>
    /// <param name="port">The UDP socket's port: the listener takes the same number.</param>
    /// <param name="maxMessage">The largest WireGuard message.</param>
    /// <param name="createOutput">An output for the engine's answers to one connection's messages.</param>
    /// <param name="logger">Where a listener that cannot start is reported.</param>
    /// <param name="peers">Peers that may fall back to TCP; 0 opens no listener.</param>
    public TcpPaths(TunnelEngine engine, int port, int maxMessage, Func<IBatchedOutput> createOutput, ILogger logger, int peers)
    {
        _engine = engine;
        _createOutput = createOutput;
        _maxMessage = maxMessage;
        var framer = new LengthPrefixFramer(maxMessage);
        _client = new StreamClient(new StreamClientOptions { Framer = framer, MaxSendQueueBytes = SendQueueBytes, ConnectTimeout = TimeSpan.FromSeconds(3) }, this);
        if (peers == 0)
        {
            return;
        }

        // Anyone may connect before a message authenticates, and each connection holds about 200 KB of buffers:
        // a few per peer cover both ends dialing at once and a reconnect while the old connection closes.
        var server = new StreamServer(
            new StreamServerOptions
            {
                EndPoint = new IPEndPoint(Socket.OSSupportsIPv6 ? IPAddress.IPv6Any : IPAddress.Any, port),
                Framer = framer,
                MaxSendQueueBytes = SendQueueBytes,
                MaxConnections = 16 + (4 * peers),
            },
            this);
        try
        {
            server.Start();
            _server = server;
        }
        catch (SocketException e)
        {
            // The tunnel still works over UDP; only this end's TCP fallback is missing. A server that never started has
            // no connection to close, so its stop completes at once.
            server.StopAsync().GetAwaiter().GetResult();
            TunnelLog.TcpListenerFailed(logger, port, e.Message);
        }
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
        connection.Tag = new ConnectionState(address, new byte[_maxMessage], _createOutput());
        _connections[address] = connection;
    }

    public ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message)
    {
        var state = (ConnectionState)connection.Tag!;
        var length = (int)message.Length;
        message.CopyTo(state.Buffer);
        _engine.ReceiveDatagram(state.Buffer.AsSpan(0, length), state.Address, state.Output);
        state.Output.Flush();
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
        var closing = Task.WhenAll(_client.DisposeAsync().AsTask(), _server?.StopAsync() ?? Task.CompletedTask);
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

    /// <summary>One connection's name, receive buffer and output (the handler runs one message at a time per connection).</summary>
    private sealed class ConnectionState(DatagramAddress address, byte[] buffer, IBatchedOutput output)
    {
        public DatagramAddress Address { get; } = address;

        public byte[] Buffer { get; } = buffer;

        public IBatchedOutput Output { get; } = output;
    }
}
