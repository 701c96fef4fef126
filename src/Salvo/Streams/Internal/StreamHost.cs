using System.Collections.Concurrent;
using System.IO.Pipelines;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Salvo.Buffers;

namespace Salvo.Streams;

/// <summary>
/// What the connections of one server or client share: options, pool, pipe settings, logger, metrics, the
/// open-connection table and one timer that checks idle and send timeouts for all of them, so that a connection
/// carries no timer of its own.
/// </summary>
internal sealed class StreamHost : IDisposable
{
    private readonly ConcurrentDictionary<long, StreamConnection> _connections = new();
    private readonly PinnedBufferPool? _ownedPool;
    private readonly Timer? _heartbeat;
    private long _nextId;
    private volatile bool _stopping;

    public StreamHost(StreamOptions options, IStreamHandler handler)
    {
        options.Validate();
        ArgumentNullException.ThrowIfNull(handler);
        Handler = handler;
        Framer = options.Framer;
        MaxSendQueueBytes = options.MaxSendQueueBytes;
        SendTimeoutMs = ToMilliseconds(options.SendTimeout);
        IdleTimeoutMs = ToMilliseconds(options.IdleTimeout);
        CloseTimeout = options.CloseTimeout;
        NoDelay = options.NoDelay;
        SocketSendBufferSize = options.SocketSendBufferSize;
        SocketReceiveBufferSize = options.SocketReceiveBufferSize;
        ConfigureSocket = options.ConfigureSocket;
        Logger = options.Logger ?? NullLogger.Instance;
        Metrics = new StreamMetrics(options.MeterFactory);
        Pool = options.BufferPool ?? (_ownedPool = new PinnedBufferPool());

        // The receive loop reads its own pipe, so pausing its writer would stall it; the framer bounds what it
        // buffers instead (at most MaxFrameSize plus one block).
        InputOptions = new PipeOptions(
            Pool, PipeScheduler.Inline, PipeScheduler.Inline, pauseWriterThreshold: 0, resumeWriterThreshold: 0,
            minimumSegmentSize: Pool.BlockSize, useSynchronizationContext: false);

        // The send loop runs inline on the flushing thread (no thread hop per message); a sender released by
        // backpressure resumes on the thread pool so that it never runs inside the send loop.
        OutputOptions = new PipeOptions(
            Pool, PipeScheduler.Inline, PipeScheduler.ThreadPool, pauseWriterThreshold: MaxSendQueueBytes,
            resumeWriterThreshold: MaxSendQueueBytes / 2, minimumSegmentSize: Pool.BlockSize, useSynchronizationContext: false);

        var period = Math.Min(IdleTimeoutMs, SendTimeoutMs) / 4;
        if (period < long.MaxValue / 4)
        {
            var interval = TimeSpan.FromMilliseconds(Math.Clamp(period, 10, 1000));
            _heartbeat = new Timer(static state => ((StreamHost)state!).Tick(), this, interval, interval);
        }
    }

    public IStreamHandler Handler { get; }

    public IMessageFramer Framer { get; }

    public int MaxSendQueueBytes { get; }

    public long SendTimeoutMs { get; }

    public long IdleTimeoutMs { get; }

    public TimeSpan CloseTimeout { get; }

    public bool NoDelay { get; }

    public int? SocketSendBufferSize { get; }

    public int? SocketReceiveBufferSize { get; }

    /// <summary>The caller's own options for listeners and connecting sockets (not accepted ones); see <see cref="StreamOptions.ConfigureSocket"/>.</summary>
    public Action<Socket>? ConfigureSocket { get; }

    /// <summary>Applies the per-socket options; before connect on a client, so that the window is negotiated with them.</summary>
    public void Configure(Socket socket)
    {
        socket.NoDelay = NoDelay;
        if (SocketSendBufferSize is { } send)
        {
            socket.SendBufferSize = send;
        }

        if (SocketReceiveBufferSize is { } receive)
        {
            socket.ReceiveBufferSize = receive;
        }
    }

    public ILogger Logger { get; }

    public StreamMetrics Metrics { get; }

    public PinnedBufferPool Pool { get; }

    public PipeOptions InputOptions { get; }

    public PipeOptions OutputOptions { get; }

    public int ConnectionCount => _connections.Count;

    public IEnumerable<StreamConnection> Connections => _connections.Values;

    public long NextId() => Interlocked.Increment(ref _nextId);

    /// <summary>Registers a starting connection; false once <see cref="CloseAllAsync"/> has begun (the caller drops it).</summary>
    public bool TryAdd(StreamConnection connection)
    {
        _connections[connection.Id] = connection;
        if (_stopping)
        {
            // Closing began after this connection was accepted but before it started: CloseAllAsync may not see it.
            _connections.TryRemove(connection.Id, out _);
            return false;
        }

        return true;
    }

    public void Remove(StreamConnection connection) => _connections.TryRemove(connection.Id, out _);

    /// <summary>
    /// Closes every open connection gracefully and waits until all have closed; once
    /// <paramref name="cancellationToken"/> fires, drops the ones still closing and waits only for that.
    /// </summary>
    public async Task CloseAllAsync(CancellationToken cancellationToken)
    {
        _stopping = true;
        var connections = _connections.Values.ToArray();
        var closing = new Task[connections.Length];
        for (var i = 0; i < connections.Length; i++)
        {
            closing[i] = connections[i].Close(StreamCloseReason.Shutdown, detail: null, graceful: true);
        }

        var all = Task.WhenAll(closing);
        try
        {
            await all.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            foreach (var connection in connections)
            {
                connection.Drop();
            }

            await all.ConfigureAwait(false);
        }
    }

    public void Dispose()
    {
        _heartbeat?.Dispose();
        _ownedPool?.Dispose();
    }

    private static long ToMilliseconds(TimeSpan timeout) =>
        timeout == Timeout.InfiniteTimeSpan ? long.MaxValue : Math.Max(1, (long)timeout.TotalMilliseconds);

    private void Tick()
    {
        var now = Environment.TickCount64;
        foreach (var connection in _connections.Values)
        {
            connection.CheckTimeouts(now);
        }
    }
}
