using System.Diagnostics;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;

namespace Salvo.Server;

/// <summary>
/// One worker: a receive loop on its socket and, with <see cref="ServerProcessing.Queued"/>, a processing
/// loop behind a bounded queue. It owns its batches, queue and counters; nothing on its path is shared
/// with other workers except, on the portable backend, the socket.
/// </summary>
internal sealed partial class ServerWorker
{
    private readonly DatagramSocket _socket;
    private readonly HandlerInvoker _handler;
    private readonly WorkerCounters _counters;
    private readonly ILogger _logger;
    private readonly ReceiveBatch _receiveBatch;
    private readonly ReceiveBatch? _processBatch;
    private readonly SendBatch _replies;
    private readonly DatagramQueue? _queue;
    private readonly QueueOverflowPolicy _policy;
    private readonly bool _deliverTruncated;
    private readonly long _busyPollTicks;

    // A fixed property of the socket's backend, read once rather than through the backend on every batch.
    private readonly bool _blockingReceiveWakesOnClose;
    private readonly CancellationToken _receiveStop;
    private readonly CancellationToken _drainStop;
    private readonly LogRateLimiter _handlerLog = new();
    private readonly ReceiveErrorPolicy _receiveErrors = new();
    private readonly LogRateLimiter _sendLog = new();
    private readonly Action<int>? _receiveThreadStarted;
    private readonly Waits _waits;
    private volatile bool _receiverDone;

    public ServerWorker(
        int index,
        DatagramSocket socket,
        DatagramServerOptions options,
        HandlerInvoker handler,
        WorkerCounters counters,
        ILogger logger,
        CancellationToken receiveStop,
        CancellationToken drainStop)
    {
        Index = index;
        _socket = socket;
        _handler = handler;
        _counters = counters;
        _logger = logger;
        _receiveStop = receiveStop;
        _drainStop = drainStop;
        _policy = options.OverflowPolicy;
        _deliverTruncated = options.DeliverTruncated;
        _receiveBatch = new ReceiveBatch(options.BatchSize, options.MaxDatagramSize);
        _replies = new SendBatch(options.BatchSize, Math.Min(options.MaxDatagramSize, SendBatch.LargestDatagramSize));
        if (options.Processing == ServerProcessing.Queued)
        {
            _queue = new DatagramQueue(options.QueueCapacity, options.QueueBytes);
            _processBatch = new ReceiveBatch(options.BatchSize, options.MaxDatagramSize);
        }

        _receiveThreadStarted = options.ReceiveThreadStarted;
        _waits = new Waits(this, blocking: options.IoModel == ServerIoModel.DedicatedThread);
        _blockingReceiveWakesOnClose = socket.BlockingReceiveWakesOnClose;
        if (socket.CanSpinReceive && options.BusyPoll > TimeSpan.Zero)
        {
            _busyPollTicks = (long)(options.BusyPoll.TotalSeconds * Stopwatch.Frequency);
        }
    }

    public int Index { get; }

    public WorkerCounters Counters => _counters;

    public long QueueDepth => _queue?.Count ?? 0;

    /// <summary>Completes when the worker's loops have ended.</summary>
    public Task Completion { get; private set; } = Task.CompletedTask;

    public void Start()
    {
        if (_waits.IsBlocking)
        {
            // Every wait of a blocking loop completes before it returns, so the loop runs to its end on this thread.
            var receiving = StartThread(
                () =>
                {
                    // This thread makes every receive on the worker's socket: a backend may drive its ring from it, and
                    // releases that ring when the loop ends (a server stopped and started again would otherwise keep one
                    // per worker per start).
                    _socket.ReceiveOnThisThreadOnly();
                    try
                    {
                        _receiveThreadStarted?.Invoke(Index);
                        RunReceiveLoopAsync().GetAwaiter().GetResult();
                    }
                    finally
                    {
                        _socket.EndReceivingOnThisThread();
                    }
                },
                "receive");
            var processing = _queue is null ? Task.CompletedTask : StartThread(() => RunProcessLoopAsync().GetAwaiter().GetResult(), "process");
            Completion = Task.WhenAll(receiving, processing);
        }
        else
        {
            var receiving = Task.Run(RunReceiveLoopAsync);
            var processing = _queue is null ? Task.CompletedTask : Task.Run(RunProcessLoopAsync);
            Completion = Task.WhenAll(receiving, processing);
        }
    }

    /// <summary>Refuses further hand-offs and counts what was still queued as dropped at stop.</summary>
    public int DropQueued()
    {
        var dropped = _queue?.CloseAndClear() ?? 0;
        _counters.OnDropped(DatagramDropReason.Stopped, dropped);
        return dropped;
    }

    private Task StartThread(Action loop, string role)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                loop();
            }
            finally
            {
                done.TrySetResult();
            }
        })
        {
            IsBackground = true,
            Name = $"salvo-{role}-{Index}",
        };
        thread.Start();
        return done.Task;
    }

    /// <summary>Drops truncated datagrams unless they are wanted (the socket has counted the batch); false when none is left.</summary>
    private bool Accept(ReceiveBatch batch)
    {
        var entries = batch.Entries;
        var count = batch.Count;
        var truncated = 0;
        if (!_deliverTruncated)
        {
            for (var i = 0; i < count; i++)
            {
                truncated += entries[i].IsTruncated ? 1 : 0;
            }
        }

        if (truncated == 0 || _deliverTruncated)
        {
            return count > 0;
        }

        var kept = 0;
        for (var i = 0; i < count; i++)
        {
            if (!entries[i].IsTruncated)
            {
                entries[kept++] = entries[i];
            }
        }

        batch.SetCount(kept);
        _counters.OnDropped(DatagramDropReason.Truncated, truncated);
        return kept > 0;
    }

    private DatagramContext BeginHandle(ReceiveBatch batch)
    {
        _counters.OnHandled(batch.Count);
        return new DatagramContext(batch, _replies, this, _drainStop);
    }

    private void OnHandlerError(Exception exception)
    {
        if (exception is OperationCanceledException && _drainStop.IsCancellationRequested)
        {
            return;
        }

        _counters.OnHandlerError();
        if (_handlerLog.TryEnter(out var suppressed))
        {
            ServerLog.HandlerFailed(_logger, Index, suppressed, exception);
        }
    }

    private void OnReceiveError(SocketException exception)
    {
        _counters.OnReceiveError();
        if (_receiveErrors.RecordError(out var suppressed))
        {
            ServerLog.ReceiveFailed(_logger, Index, suppressed, exception);
        }
    }

    private void OnRepliesSent()
    {
        // The socket has counted what the kernel accepted and each refusal.
        var failed = _replies.FailedCount;
        if (failed > 0 && _sendLog.TryEnter(out var suppressed))
        {
            ServerLog.SendFailed(_logger, Index, failed, _replies.FirstError, suppressed);
        }
    }

    private void OnRepliesFailed(SocketException exception)
    {
        _counters.OnSendThrew(_replies.Count);
        if (_sendLog.TryEnter(out var suppressed))
        {
            ServerLog.SendFailed(_logger, Index, _replies.Count, exception.SocketErrorCode, suppressed);
        }
    }

    private void RecordEnqueue(in EnqueueOutcome outcome)
    {
        _counters.OnDropped(DatagramDropReason.QueueFull, outcome.DroppedNewest + outcome.DroppedOldest);
        _counters.OnDropped(DatagramDropReason.Stopped, outcome.Closed);
    }

    /// <summary>Non-blocking receives for up to BusyPoll; 0 when nothing came.</summary>
    private int SpinReceive()
    {
        var start = Stopwatch.GetTimestamp();
        do
        {
            var received = _socket.Receive(_receiveBatch, TimeSpan.Zero);
            if (received > 0)
            {
                _counters.OnBusyPollReceived(received);
                return received;
            }

            Thread.SpinWait(16);
        }
        while (Stopwatch.GetTimestamp() - start < _busyPollTicks && !_receiveStop.IsCancellationRequested);

        return 0;
    }
}
