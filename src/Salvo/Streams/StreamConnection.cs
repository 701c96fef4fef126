using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Streams;

/// <summary>
/// One framed TCP connection. Two pipes carry its bytes: the receive loop waits with a zero-byte read, so an idle
/// connection holds no buffer, and decodes frames straight out of its input pipe; senders encode into the output
/// pipe, which a send loop drains to the socket. The output pipe is bounded by
/// <see cref="StreamOptions.MaxSendQueueBytes"/>. No thread and no timer belong to a connection.
/// </summary>
public sealed partial class StreamConnection : IMessagePeer
{
    private const int Open = 0;
    private const int Closing = 1;
    private const int Closed = 2;

    private readonly StreamHost _host;
    private readonly Socket _socket;
    private readonly Pipe _input;
    private readonly Pipe _output;
    private readonly SemaphoreSlim _sendGate = new(1, 1);
    private long _lastActivity;
    private int _state;
    private Task _receiveLoop = Task.CompletedTask;
    private Task _sendLoop = Task.CompletedTask;
    private TaskCompletionSource? _closedSource;
    private CancellationTokenSource? _closingSource;

    internal StreamConnection(StreamHost host, Socket socket)
    {
        _host = host;
        _socket = socket;
        // Synchronous calls return WouldBlock instead of waiting: ReceiveReady relies on it. Async calls are unaffected.
        socket.Blocking = false;
        _input = new Pipe(host.InputOptions);
        _output = new Pipe(host.OutputOptions);
        Id = host.NextId();
        _lastActivity = Environment.TickCount64;
        // Cached: the socket's own properties throw once it is disposed, and logs of the close still name the peer.
        RemoteEndPoint = socket.RemoteEndPoint;
        LocalEndPoint = socket.LocalEndPoint;
    }

    /// <summary>A number unique among the connections of one server or client, from 1.</summary>
    public long Id { get; }

    /// <summary>The peer's address.</summary>
    public EndPoint? RemoteEndPoint { get; }

    /// <summary>This side's address.</summary>
    public EndPoint? LocalEndPoint { get; }

    /// <summary>Always <see cref="TransportKind.Tcp"/>.</summary>
    TransportKind IMessagePeer.Transport => TransportKind.Tcp;

    /// <summary>Whether the connection still takes messages to send.</summary>
    public bool IsOpen => Volatile.Read(ref _state) == Open;

    /// <summary>Why the connection closed, or <see cref="StreamCloseReason.None"/> while it is open.</summary>
    public StreamCloseReason CloseReason { get; private set; }

    /// <summary>Application state to keep with the connection.</summary>
    public object? Tag { get; set; }

    /// <summary>Completes when the connection has closed and released its socket and buffers.</summary>
    public Task Completion
    {
        get
        {
            var source = Volatile.Read(ref _closedSource);
            if (source is null)
            {
                var created = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                source = Interlocked.CompareExchange(ref _closedSource, created, null) ?? created;
            }

            if (Volatile.Read(ref _state) == Closed)
            {
                source.TrySetResult();
            }

            return source.Task;
        }
    }

    /// <summary>
    /// Cancelled when the connection starts closing (for any reason), so that a handler waiting on something else can
    /// give up. Created on first use; a connection whose handler never asks carries none.
    /// </summary>
    public CancellationToken ClosingToken
    {
        get
        {
            var source = Volatile.Read(ref _closingSource);
            if (source is null)
            {
                var created = new CancellationTokenSource();
                source = Interlocked.CompareExchange(ref _closingSource, created, null) ?? created;
            }

            if (!IsOpen)
            {
                source.Cancel();
            }

            return source.Token;
        }
    }

    /// <summary>
    /// Closes gracefully: queued messages go out, the peer sees end of stream, and the connection waits up to
    /// <see cref="StreamOptions.CloseTimeout"/> for the peer's own end of stream. Inside a message handler, call it
    /// without awaiting: the close waits for the handler to return (up to the close timeout).
    /// </summary>
    /// <returns>A task that completes when the connection has closed.</returns>
    public Task CloseAsync() => Close(StreamCloseReason.LocalClose, detail: null, graceful: true);

    /// <summary>Drops the connection at once; queued messages are discarded.</summary>
    public void Abort() => Close(StreamCloseReason.LocalClose, detail: null, graceful: false);

    /// <inheritdoc />
    public override string ToString() => $"Connection {Id} with {RemoteEndPoint}";

    internal void Start()
    {
        if (!_host.TryAdd(this))
        {
            _socket.Dispose();
            return;
        }

        _runningParts = 3;
        _host.Metrics.Opened();
        StreamLog.Opened(_host.Logger, Id, RemoteEndPoint);
        try
        {
            _host.Handler.OnConnected(this);
        }
        catch (Exception e)
        {
            StreamLog.HandlerFailed(_host.Logger, Id, RemoteEndPoint, e);
            _runningParts = 1;
            _ = Close(StreamCloseReason.HandlerError, e.Message, graceful: false);
            return;
        }

        _sendLoop = SendLoopAsync();
        _receiveLoop = ReceiveLoopAsync();
    }

    internal void CheckTimeouts(long now)
    {
        if (Volatile.Read(ref _state) != Open)
        {
            return;
        }

        var blockedSince = Volatile.Read(ref _sendBlockedSince);
        if (blockedSince != 0 && now - blockedSince >= _host.SendTimeoutMs)
        {
            _ = Close(
                StreamCloseReason.SendTimeout,
                $"{QueuedSendBytes} bytes queued and the send queue full for {_host.SendTimeoutMs} ms: the peer is not reading",
                graceful: false);
        }
        else if (now - Volatile.Read(ref _lastActivity) >= _host.IdleTimeoutMs)
        {
            _ = Close(StreamCloseReason.IdleTimeout, detail: null, graceful: true);
        }
    }

    private void Touch() => Volatile.Write(ref _lastActivity, Environment.TickCount64);
}
