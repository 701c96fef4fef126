using System.Threading.Tasks.Sources;

namespace Salvo.Internal;

/// <summary>
/// A wake-up flag with one waiter at a time, waited on by blocking or by awaiting. The awaitable form
/// completes a reusable <see cref="ManualResetValueTaskSourceCore{TResult}"/>, so an idle-then-busy cycle
/// allocates nothing (SemaphoreSlim.WaitAsync allocates a task each time it has to wait). A set that finds
/// no waiter is remembered for the next wait.
/// </summary>
internal sealed class WaitSignal : IValueTaskSource
{
    // A blocked thread looks at its cancellation token this often; a set wakes it at once.
    private const int CancellationPollMilliseconds = 50;

    private readonly object _gate = new();
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = true };
    private CancellationTokenRegistration _registration;
    private bool _signaled;
    private bool _asyncWaiting;
    private bool _syncWaiting;

    public void Set()
    {
        lock (_gate)
        {
            if (!_asyncWaiting)
            {
                _signaled = true;
                if (_syncWaiting)
                {
                    Monitor.Pulse(_gate);
                }

                return;
            }

            _asyncWaiting = false;
        }

        _core.SetResult(true);
    }

    /// <summary>Blocks until set, looking at <paramref name="cancellationToken"/> between slices; a set already made is taken first.</summary>
    public void Wait(CancellationToken cancellationToken)
    {
        var milliseconds = 0;
        while (!Wait(milliseconds))
        {
            cancellationToken.ThrowIfCancellationRequested();
            milliseconds = CancellationPollMilliseconds;
        }
    }

    /// <summary>Blocks until set or for <paramref name="milliseconds"/>; true when it was set (and is now consumed).</summary>
    public bool Wait(int milliseconds)
    {
        lock (_gate)
        {
            if (!_signaled && milliseconds > 0)
            {
                _syncWaiting = true;
                Monitor.Wait(_gate, milliseconds);
                _syncWaiting = false;
            }

            var signaled = _signaled;
            _signaled = false;
            return signaled;
        }
    }

    public ValueTask WaitAsync(CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if (_signaled)
            {
                _signaled = false;
                return default;
            }

            if (cancellationToken.IsCancellationRequested)
            {
                return ValueTask.FromCanceled(cancellationToken);
            }

            _core.Reset();
            _asyncWaiting = true;
        }

        var version = _core.Version;
        if (cancellationToken.CanBeCanceled)
        {
            _registration = cancellationToken.UnsafeRegister(static (state, token) => ((WaitSignal)state!).Cancel(token), this);
        }

        return new ValueTask(this, version);
    }

    void IValueTaskSource.GetResult(short token)
    {
        try
        {
            _core.GetResult(token);
        }
        finally
        {
            _registration.Dispose();
            _registration = default;
        }
    }

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    private void Cancel(CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if (!_asyncWaiting)
            {
                return;
            }

            _asyncWaiting = false;
        }

        _core.SetException(new OperationCanceledException(cancellationToken));
    }
}
