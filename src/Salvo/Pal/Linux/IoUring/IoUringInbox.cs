using Salvo.Interop.Linux;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// One completion the ring's thread handed to a socket: a filled provided buffer (its group and id, and the bytes the
/// kernel wrote), or an error to report. Plain data, so a receive can take items onto its stack.
/// </summary>
internal readonly record struct InboxItem(ushort Group, ushort BufferId, int Length, Errno Error);

/// <summary>
/// The completions waiting for one socket's receiver, filled by its ring's thread and taken by whoever receives: a
/// queue under a lock (held for a copy of a few words) and a <see cref="WaitSignal"/>, set when the queue stops being
/// empty or the inbox closes, awaited in the async model and waited on by a dedicated thread. The queue grows only
/// while more completions are pending than ever before, so steady state allocates nothing.
/// </summary>
internal sealed class IoUringInbox
{
    private readonly Lock _gate = new();
    private readonly WaitSignal _signal = new();
    private InboxItem[] _items = new InboxItem[16];
    private int _head;
    private int _count;
    private bool _closed;

    /// <summary>Queues a completion and wakes the waiter; false when the inbox is closed (the caller keeps the buffer).</summary>
    public bool Post(in InboxItem item)
    {
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
            if (++_count > 1)
            {
                // The receiver was signalled when the queue stopped being empty; it waits only once it is empty again.
                return true;
            }
        }

        _signal.Set();
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

    /// <summary>Closes the inbox and wakes the waiter (which then sees the socket disposed); returns what was still queued.</summary>
    public int Close(Span<InboxItem> leftover, out bool more)
    {
        int taken;
        lock (_gate)
        {
            _closed = true;
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

        _signal.Set();
        return taken;
    }

    /// <summary>Completes once an item may be queued or the inbox closed (the caller looks again); one waiter at a time.</summary>
    public ValueTask WaitAsync(CancellationToken cancellationToken) => _signal.WaitAsync(cancellationToken);

    /// <summary>Blocks up to <paramref name="milliseconds"/> for an item or the close.</summary>
    public void WaitBlocking(int milliseconds) => _ = _signal.Wait(milliseconds);

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
