using System.Threading.Tasks.Sources;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// One completion the ring's thread handed to a socket: a filled provided buffer (its group and id, and the bytes the
/// kernel wrote), or an error to report. Plain data, so a receive can take items onto its stack.
/// </summary>
internal readonly record struct InboxItem(ushort Group, ushort BufferId, int Length, Errno Error);

/// <summary>
/// The completions waiting for one socket's receiver, filled by its ring's thread and taken by whoever receives: a
/// queue under a lock (held for a copy of a few words), one awaitable wait for the async model, and Monitor waits for
/// the blocking one. The queue grows only while more completions are pending than ever before, so steady state
/// allocates nothing.
/// </summary>
internal sealed class IoUringInbox : IValueTaskSource<bool>
{
    // A plain object, not a Lock: the blocking waits use Monitor.Wait on it.
    private readonly object _gate = new();
    private ManualResetValueTaskSourceCore<bool> _waiter = new() { RunContinuationsAsynchronously = true };
    private CancellationTokenRegistration _registration;
    private InboxItem[] _items = new InboxItem[16];
    private int _head;
    private int _count;
    private bool _asyncWaiting;
    private int _blockedWaiters;
    private bool _closed;

    /// <summary>Queues a completion and wakes a waiter; false when the inbox is closed (the caller keeps the buffer).</summary>
    public bool Post(in InboxItem item)
    {
        bool wake;
        lock (_gate)
        {
            if (_closed)
            {
                return false;
            }

            if (_count == _items.Length)
            {
                Grow();
            }

            _items[(_head + _count) % _items.Length] = item;
            _count++;
            wake = _asyncWaiting;
            _asyncWaiting = false;
            if (_blockedWaiters > 0)
            {
                Monitor.PulseAll(_gate);
            }
        }

        if (wake)
        {
            _waiter.SetResult(true);
        }

        return true;
    }

    /// <summary>
    /// Takes up to <paramref name="into"/>.Length items, stopping before an error unless it comes first and
    /// <paramref name="errorFirst"/> allows one (a receive that already holds datagrams reports the error next time).
    /// </summary>
    public int Take(Span<InboxItem> into, bool errorFirst)
    {
        lock (_gate)
        {
            var taken = 0;
            while (taken < into.Length && _count > 0)
            {
                var item = _items[_head];
                if (item.Error != Errno.None && (taken > 0 || !errorFirst))
                {
                    break;
                }

                into[taken++] = item;
                _items[_head] = default;
                _head = (_head + 1) % _items.Length;
                _count--;
                if (item.Error != Errno.None)
                {
                    break;
                }
            }

            return taken;
        }
    }

    /// <summary>Closes the inbox: waiters wake (they then see the socket disposed); returns what was still queued.</summary>
    public int Close(Span<InboxItem> leftover, out bool more)
    {
        bool wake;
        int taken;
        lock (_gate)
        {
            _closed = true;
            wake = _asyncWaiting;
            _asyncWaiting = false;
            Monitor.PulseAll(_gate);
            taken = 0;
            while (taken < leftover.Length && _count > 0)
            {
                leftover[taken++] = _items[_head];
                _items[_head] = default;
                _head = (_head + 1) % _items.Length;
                _count--;
            }

            more = _count > 0;
        }

        if (wake)
        {
            _waiter.SetResult(false);
        }

        return taken;
    }

    /// <summary>
    /// Completes when an item is queued or the inbox closes; completes at once when either is already so. One async
    /// waiter at a time (a socket has one receive loop per batch; see docs/design.md).
    /// </summary>
    public ValueTask<bool> WaitAsync(CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if (_count > 0 || _closed)
            {
                return new(true);
            }

            if (_asyncWaiting)
            {
                throw new InvalidOperationException("The IoUring backend takes one pending ReceiveAsync per socket at a time.");
            }

            _waiter.Reset();
            _asyncWaiting = true;
        }

        if (cancellationToken.CanBeCanceled)
        {
            _registration = cancellationToken.UnsafeRegister(static (state, token) => ((IoUringInbox)state!).CancelWait(token), this);
        }

        return new(this, _waiter.Version);
    }

    /// <summary>Blocks up to <paramref name="milliseconds"/> for an item or the close; true when one is queued.</summary>
    public bool WaitBlocking(int milliseconds)
    {
        lock (_gate)
        {
            if (_count == 0 && !_closed && milliseconds > 0)
            {
                _blockedWaiters++;
                Monitor.Wait(_gate, milliseconds);
                _blockedWaiters--;
            }

            return _count > 0;
        }
    }

    bool IValueTaskSource<bool>.GetResult(short token)
    {
        _registration.Dispose();
        _registration = default;
        return _waiter.GetResult(token);
    }

    ValueTaskSourceStatus IValueTaskSource<bool>.GetStatus(short token) => _waiter.GetStatus(token);

    void IValueTaskSource<bool>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _waiter.OnCompleted(continuation, state, token, flags);

    private void CancelWait(CancellationToken token)
    {
        lock (_gate)
        {
            if (!_asyncWaiting)
            {
                return;
            }

            _asyncWaiting = false;
        }

        _waiter.SetException(new OperationCanceledException(token));
    }

    private void Grow()
    {
        var larger = new InboxItem[_items.Length * 2];
        for (var i = 0; i < _count; i++)
        {
            larger[i] = _items[(_head + i) % _items.Length];
        }

        _items = larger;
        _head = 0;
    }
}
