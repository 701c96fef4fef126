using Salvo.Tunnel.Pal;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

/// <summary>
/// The thread that answers queued handshake messages (<see cref="HandshakeQueue"/>), below the data threads'
/// priority: its nice value is <see cref="NiceLevelsBelowData"/> above theirs where the platform allows (silently not
/// elsewhere), so on busy
/// CPUs the scheduler gives the data threads the time first and a storm of handshakes waits, and past its queue is
/// dropped, rather than the data. It serves up to <see cref="RoundSize"/> messages between flushes, so answers leave
/// while the queue is still long, and wakes at least once a tick to see whether it should stop.
/// </summary>
internal sealed class HandshakeThread
{
    /// <summary>
    /// Five levels: at nice 5 against the data threads' 0, CFS weighs it 335 against 1,024 (kernel/sched/core.c,
    /// sched_prio_to_weight), so busy CPUs give the data threads about three times its time, and it still answers a
    /// few hundred handshakes a second on this machine's two shared cores (docs/benchmarks.md, "Handshakes at scale").
    /// </summary>
    public const int NiceLevelsBelowData = 5;

    /// <summary>Messages answered between two flushes of the output.</summary>
    public const int RoundSize = 32;

    private readonly TunnelEngine _engine;
    private readonly HandshakeQueue _queue;
    private readonly IBatchedOutput _output;
    private readonly Action<Exception> _roundFailed;
    private readonly CancellationToken _stop;
    private readonly Thread _thread;

    /// <param name="engine">The engine whose <see cref="TunnelEngine.ServeHandshake"/> answers each message.</param>
    /// <param name="queue">Where the receiving thread puts the messages.</param>
    /// <param name="output">Where answers go; flushed after each round. Used by this thread only.</param>
    /// <param name="name">The thread's name.</param>
    /// <param name="roundFailed">Told of an error inside a round (the thread goes on with the next).</param>
    /// <param name="stop">Ends the thread within a tick.</param>
    public HandshakeThread(TunnelEngine engine, HandshakeQueue queue, IBatchedOutput output, string name, Action<Exception> roundFailed, CancellationToken stop)
    {
        _engine = engine;
        _queue = queue;
        _output = output;
        _roundFailed = roundFailed;
        _stop = stop;
        _thread = new Thread(Run) { IsBackground = true, Name = name };
    }

    /// <summary>The queue it serves.</summary>
    public HandshakeQueue Queue => _queue;

    /// <summary>Whether the thread runs <see cref="NiceLevelsBelowData"/> below the process's priority; false until it started, or where the platform refused.</summary>
    public bool RunsBelowData { get; private set; }

    public void Start() => _thread.Start();

    public bool Join(TimeSpan timeout) => _thread.Join(timeout);

    private void Run()
    {
        RunsBelowData = TunnelPlatform.Current.TryLowerCurrentThreadPriority(NiceLevelsBelowData);
        var message = new byte[MessageLayout.InitiationSize];
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                if (!_queue.WaitForMessage(TunnelEngine.TickInterval))
                {
                    continue;
                }

                for (var served = 0; served < RoundSize; served++)
                {
                    var length = _queue.TryTake(message, out var source);
                    if (length == 0)
                    {
                        break;
                    }

                    _engine.ServeHandshake(message.AsSpan(0, length), source, _output);
                }

                _output.Flush();
            }
            catch (ObjectDisposedException) when (_stop.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e) when (!_stop.IsCancellationRequested)
            {
                _roundFailed(e);
            }
        }
    }
}
