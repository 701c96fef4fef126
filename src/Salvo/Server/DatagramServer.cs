using System.Net;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Salvo.Server;

/// <summary>
/// A UDP server: <see cref="DatagramServerOptions.Workers"/> receive loops, each receiving in batches and
/// handing every batch to a handler, whose replies go back in one batched send. See docs/server.md.
/// </summary>
/// <remarks>
/// <para>On Linux each worker owns a socket bound with SO_REUSEPORT to the same endpoint: the kernel keeps
/// each flow (source address and port) on one worker, so a flow's datagrams reach the handler in order.</para>
/// <para>A handler that throws is counted and logged (at most once a second per worker) and its worker goes
/// on. A handler slower than the traffic shows up as counted drops (see
/// <see cref="DatagramServerOptions.OverflowPolicy"/>), never as growing memory.</para>
/// </remarks>
public sealed class DatagramServer : IAsyncDisposable
{
    // How long a stop waits for loops to end after it has closed the sockets; past it a worker whose
    // handler never returns is abandoned (its thread is a background thread).
    private static readonly TimeSpan s_closeGrace = TimeSpan.FromSeconds(2);

    private readonly DatagramServerOptions _options;
    private readonly HandlerInvoker _handler;
    private readonly ILogger _logger;
    private readonly Lock _stateLock = new();
    private readonly CancellationTokenSource _receiveStop = new();
    private readonly CancellationTokenSource _drainStop = new();
    private DatagramSocket[] _sockets = [];
    private ServerWorker[] _workers = [];
    private ServerMetrics? _metrics;
    private IPEndPoint? _localEndPoint;
    private State _state;
    private Task? _stopping;

    /// <summary>Creates a server with a synchronous handler. Nothing is bound until <see cref="StartAsync"/>.</summary>
    /// <param name="options">How to run it; copied, so later changes do not reach the server.</param>
    /// <param name="handler">Called with each received batch.</param>
    /// <param name="logger">Where the server logs; null uses <see cref="DatagramSocketOptions.Logger"/> of <see cref="DatagramServerOptions.Socket"/>, as sockets and streams take theirs from their options.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    public DatagramServer(DatagramServerOptions options, IDatagramHandler handler, ILogger? logger = null)
        : this(options, new HandlerInvoker(handler ?? throw new ArgumentNullException(nameof(handler))), logger)
    {
    }

    /// <summary>Creates a server with an asynchronous handler. Nothing is bound until <see cref="StartAsync"/>.</summary>
    /// <param name="options">How to run it; copied, so later changes do not reach the server.</param>
    /// <param name="handler">Called with each received batch.</param>
    /// <param name="logger">Where the server logs; null uses <see cref="DatagramSocketOptions.Logger"/> of <see cref="DatagramServerOptions.Socket"/>, as sockets and streams take theirs from their options.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    public DatagramServer(DatagramServerOptions options, IAsyncDatagramHandler handler, ILogger? logger = null)
        : this(options, new HandlerInvoker(handler ?? throw new ArgumentNullException(nameof(handler))), logger)
    {
    }

    private DatagramServer(DatagramServerOptions options, HandlerInvoker handler, ILogger? logger)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        _options = options.Clone();
        _handler = handler;
        // One logger for the server and its sockets: the options' (as for sockets and streams), unless one is passed here.
        _logger = logger ?? options.Socket.Logger ?? NullLogger.Instance;
    }

    /// <summary>The bound endpoint (the actual port when port 0 was asked).</summary>
    /// <exception cref="InvalidOperationException">The server has not started.</exception>
    public IPEndPoint LocalEndPoint => _localEndPoint ?? throw new InvalidOperationException("The server has not started.");

    /// <summary>Receive loops running (or that ran).</summary>
    public int WorkerCount => _options.Workers;

    /// <summary>The backend the sockets use; <see cref="DatagramBackend.Auto"/> before start.</summary>
    public DatagramBackend Backend => _sockets.Length > 0 ? _sockets[0].Backend : DatagramBackend.Auto;

    /// <summary>Sockets opened: one per worker on Linux, one shared on the portable backend.</summary>
    public int SocketCount => _sockets.Length;

    /// <summary>Whether SO_BUSY_POLL was asked for and the kernel accepted it on every socket.</summary>
    public bool KernelBusyPollEnabled { get; private set; }

    /// <summary>
    /// Whether the workers spin for <see cref="DatagramServerOptions.BusyPoll"/> before blocking: asked for and on the
    /// Linux batched backend (the portable backend has no non-blocking batched receive to spin on).
    /// </summary>
    public bool BusyPollEnabled { get; private set; }

    /// <summary>Whether the server is started and not yet stopping.</summary>
    public bool IsRunning
    {
        get
        {
            lock (_stateLock)
            {
                return _state == State.Running;
            }
        }
    }

    /// <summary>Binds the sockets and starts the workers. Returns once the server is receiving.</summary>
    /// <exception cref="InvalidOperationException">The server was already started or stopped.</exception>
    /// <exception cref="System.Net.Sockets.SocketException">The endpoint cannot be bound: in use (unless <see cref="DatagramServerOptions.SharePort"/>), or refused; the message names it.</exception>
    public Task StartAsync(CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        lock (_stateLock)
        {
            if (_state != State.Created)
            {
                throw new InvalidOperationException($"The server is {_state}; a server starts once (create a new one to start again).");
            }

            _state = State.Starting;
        }

        try
        {
            _sockets = ServerSockets.Open(_options);
            if (_options.KernelBusyPollMicroseconds is int busyPoll)
            {
                KernelBusyPollEnabled = ServerSockets.TrySetKernelBusyPoll(_sockets, busyPoll, _logger);
            }

            BusyPollEnabled = _options.BusyPoll > TimeSpan.Zero && _sockets[0].CanSpinReceive;
            if (_options.BusyPoll > TimeSpan.Zero && !BusyPollEnabled)
            {
                ServerLog.BusyPollIgnored(_logger, _sockets[0].Backend);
            }

            _localEndPoint = _sockets[0].LocalEndPoint;
            _metrics = new ServerMetrics(_options.MeterFactory, _sockets[0].AddressFamily, _localEndPoint.Port, GetStatistics);
            _workers = new ServerWorker[_options.Workers];
            for (var i = 0; i < _workers.Length; i++)
            {
                _workers[i] = new ServerWorker(
                    i, _sockets[i % _sockets.Length], _options, _handler, new WorkerCounters(), _logger, _receiveStop.Token, _drainStop.Token);
            }
        }
        catch
        {
            CloseSockets();
            _metrics?.Dispose();
            lock (_stateLock)
            {
                _state = State.Stopped;
            }

            throw;
        }

        foreach (var worker in _workers)
        {
            worker.Start();
        }

        lock (_stateLock)
        {
            _state = State.Running;
        }

        ServerLog.Started(_logger, _localEndPoint, _workers.Length, Backend, _options.IoModel, _options.Processing);
        return Task.CompletedTask;
    }

    /// <summary>
    /// Stops receiving, lets handlers work through what was received for up to
    /// <see cref="DatagramServerOptions.DrainTimeout"/> (or until <paramref name="cancellationToken"/> is
    /// cancelled), counts whatever is left as dropped, and closes the sockets. Never throws for the work in
    /// flight; calling it again waits for the same stop.
    /// </summary>
    public Task StopAsync(CancellationToken cancellationToken = default)
    {
        lock (_stateLock)
        {
            switch (_state)
            {
                case State.Created:
                    _state = State.Stopped;
                    return Task.CompletedTask;
                case State.Running:
                    _state = State.Stopping;
                    _stopping = StopCoreAsync(cancellationToken);
                    return _stopping;
                default:
                    return _stopping ?? Task.CompletedTask;
            }
        }
    }

    /// <summary>Stops (see <see cref="StopAsync"/>) and releases everything.</summary>
    public async ValueTask DisposeAsync()
    {
        await StopAsync().ConfigureAwait(false);
        _metrics?.Dispose();
        _receiveStop.Dispose();
        _drainStop.Dispose();
    }

    /// <summary>
    /// The counters of all workers added up, read now: datagrams and bytes from the sockets, which count each batch once,
    /// the rest from the workers.
    /// </summary>
    public DatagramServerStatistics GetStatistics()
    {
        var total = new DatagramServerStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, TotalKernelDrops());
        foreach (var socket in _sockets)
        {
            total = WorkerCounters.Add(total, WorkerCounters.Traffic(socket.Counters.Snapshot()));
        }

        foreach (var worker in _workers)
        {
            total = WorkerCounters.Add(total, worker.Counters.Snapshot(default, worker.QueueDepth, null));
        }

        return total;
    }

    /// <summary>
    /// One worker's counters, read now. Datagrams and bytes received and sent and <see cref="DatagramServerStatistics.KernelDrops"/>
    /// are its socket's: on the portable backend, where the workers share one socket, every worker reports the shared socket's.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="worker"/> is not a started worker's index.</exception>
    public DatagramServerStatistics GetWorkerStatistics(int worker)
    {
        var workers = _workers;
        ArgumentOutOfRangeException.ThrowIfNegative(worker);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(worker, workers.Length);
        var socket = _sockets[worker % _sockets.Length];
        return workers[worker].Counters.Snapshot(socket.Counters.Snapshot(), workers[worker].QueueDepth, socket.ReadKernelDrops());
    }

    private async Task StopCoreAsync(CancellationToken cancellationToken)
    {
        await _receiveStop.CancelAsync().ConfigureAwait(false);
        var loops = Task.WhenAll(Array.ConvertAll(_workers, w => w.Completion));
        if (!await CompletesWithin(loops, _options.DrainTimeout, cancellationToken).ConfigureAwait(false))
        {
            await _drainStop.CancelAsync().ConfigureAwait(false);
        }

        long dropped = 0;
        foreach (var worker in _workers)
        {
            dropped += worker.DropQueued();
        }

        if (dropped > 0)
        {
            ServerLog.DrainTimedOut(_logger, _options.DrainTimeout, dropped);
        }

        // Closing wakes any loop still blocked in a receive, a send or a wait.
        await _drainStop.CancelAsync().ConfigureAwait(false);
        CloseSockets();
        if (!await CompletesWithin(loops, s_closeGrace, CancellationToken.None).ConfigureAwait(false))
        {
            ServerLog.WorkerAbandoned(_logger, LocalEndPoint);
        }

        lock (_stateLock)
        {
            _state = State.Stopped;
        }

        var totals = GetStatistics();
        ServerLog.Stopped(_logger, LocalEndPoint, totals.DatagramsReceived, totals.DatagramsHandled, totals.DatagramsDropped);
    }

    private static async Task<bool> CompletesWithin(Task task, TimeSpan timeout, CancellationToken cancellationToken)
    {
        try
        {
            await task.WaitAsync(timeout, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (Exception e) when (e is TimeoutException or OperationCanceledException)
        {
            return false;
        }
    }

    private long? TotalKernelDrops()
    {
        long? total = null;
        foreach (var socket in _sockets)
        {
            if (socket.ReadKernelDrops() is long drops)
            {
                total = (total ?? 0) + drops;
            }
        }

        return total;
    }

    private void CloseSockets()
    {
        foreach (var socket in _sockets)
        {
            socket.Dispose();
        }
    }

    private enum State
    {
        Created,
        Starting,
        Running,
        Stopping,
        Stopped,
    }
}
