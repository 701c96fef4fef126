using System.Runtime.Versioning;
using System.Threading.Tasks.Sources;

namespace Salvo.Pal;

/// <summary>
/// The wait of an AF_XDP socket's async receives: there is no descriptor the runtime's epoll engine would watch for the
/// rings, so one thread per socket (made at the first receive that has to wait) does the blocking wait, poll(2) or a spin
/// on the rings as the socket is set to, and completes a reusable value task: no allocation per wait. One async receive
/// waits at a time, as <see cref="ReceiveBatch"/> allows one receive at a time.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class AfXdpReceiveWaiter : IValueTaskSource, IDisposable
{
    /// <summary>The longest single wait: how late a cancelled token is seen (a close is seen at once, see AfXdpDatagramPal.Close).</summary>
    private const int SliceMilliseconds = 50;

    private readonly AfXdpDatagramPal _pal;
    private readonly SemaphoreSlim _requests = new(0);
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = true };
    private CancellationToken _cancellation;
    private int _pending;
    private volatile bool _stopped;

    public AfXdpReceiveWaiter(AfXdpDatagramPal pal)
    {
        _pal = pal;
        var thread = new Thread(Run) { IsBackground = true, Name = "Salvo AF_XDP wait" };
        thread.Start();
    }

    /// <summary>Completes when frames may be ready, the socket closed (ObjectDisposedException) or the token was cancelled.</summary>
    public ValueTask WaitAsync(CancellationToken cancellationToken)
    {
        _core.Reset();
        _cancellation = cancellationToken;
        Volatile.Write(ref _pending, 1);
        _requests.Release();
        return new ValueTask(this, _core.Version);
    }

    public void GetResult(short token) => _core.GetResult(token);

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    public void Dispose()
    {
        _stopped = true;
        _requests.Release();
    }

    private void Run()
    {
        while (true)
        {
            _requests.Wait();
            if (Interlocked.Exchange(ref _pending, 0) == 0)
            {
                if (_stopped)
                {
                    return;
                }

                continue;
            }

            try
            {
                while (!_cancellation.IsCancellationRequested && !_pal.HasFramesOrIsClosed())
                {
                    _pal.WaitForFrames(SliceMilliseconds);
                }

                _cancellation.ThrowIfCancellationRequested();
                _pal.ThrowIfDisposed();
                _core.SetResult(true);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
            {
                _core.SetException(e);
            }

            if (_stopped)
            {
                return;
            }
        }
    }
}
