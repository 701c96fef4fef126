namespace Salvo.Perf.Loopback;

/// <summary>
/// Runs an async loop on the calling thread: continuations posted back to this context run here, so an
/// async end stays on its own (pinned, measured) thread as far as the runtime allows. Work the runtime
/// does on its own threads (the epoll thread's completions) still lands elsewhere.
/// </summary>
internal sealed class SingleThreadContext : SynchronizationContext
{
    private readonly Queue<(SendOrPostCallback Callback, object? State)> _queue = new();
    private readonly object _gate = new();

    /// <summary>Runs <paramref name="loop"/> to completion on the calling thread.</summary>
    public static void Run(Func<Task> loop)
    {
        var previous = Current;
        var context = new SingleThreadContext();
        SetSynchronizationContext(context);
        try
        {
            var task = loop();
            task.ContinueWith(_ => context.Post(static _ => { }, null), TaskScheduler.Default);
            context.Pump(task);
            task.GetAwaiter().GetResult();
        }
        finally
        {
            SetSynchronizationContext(previous);
        }
    }

    /// <inheritdoc />
    public override void Post(SendOrPostCallback d, object? state)
    {
        lock (_gate)
        {
            _queue.Enqueue((d, state));
            Monitor.Pulse(_gate);
        }
    }

    /// <inheritdoc />
    public override void Send(SendOrPostCallback d, object? state) =>
        throw new NotSupportedException("Synchronous Send is not supported by the loop context.");

    private void Pump(Task task)
    {
        while (!task.IsCompleted)
        {
            (SendOrPostCallback Callback, object? State) item;
            lock (_gate)
            {
                while (_queue.Count == 0)
                {
                    if (task.IsCompleted)
                    {
                        return;
                    }

                    Monitor.Wait(_gate, 50);
                }

                item = _queue.Dequeue();
            }

            item.Callback(item.State);
        }
    }
}
