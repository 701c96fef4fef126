using System.Runtime.InteropServices;
using Salvo.Internal;

namespace Salvo.Server;

/// <summary>
/// One worker's bounded hand-off between receiving and handling: datagrams are copied into a pinned byte
/// ring (allocated once) with a fixed ring of descriptors, so steady state allocates nothing. One producer
/// (the receive loop) and one consumer (the processing loop) move whole batches under one short lock each.
/// Each datagram keeps its whole entry (source, local address, interface, ECN, truncation), so a queued handler
/// sees what an inline one sees.
/// </summary>
internal sealed class DatagramQueue
{
    private readonly Lock _lock = new();
    private readonly byte[] _bytes;
    // Offset is the record's place in _bytes while queued; Dequeue rewrites it for the target batch.
    private readonly DatagramEntry[] _slots;
    private readonly WaitSignal _items = new();
    private readonly WaitSignal _space = new();
    private int _head;
    private int _count;
    private int _tail;
    private bool _closed;

    public DatagramQueue(int capacity, int bytes)
    {
        _slots = new DatagramEntry[capacity];
        // Pinned: the slab is long-lived and large, and the pinned heap never compacts it.
        _bytes = GC.AllocateUninitializedArray<byte>(bytes, pinned: true);
    }

    public int Count => Volatile.Read(ref _count);

    /// <summary>
    /// Enqueues datagrams <paramref name="start"/>.. of <paramref name="batch"/> under <paramref name="policy"/>.
    /// Returns the index of the first datagram not yet taken (only <see cref="QueueOverflowPolicy.Wait"/>
    /// stops early: wait for room, then call again).
    /// </summary>
    public int Enqueue(ReceiveBatch batch, int start, QueueOverflowPolicy policy, ref EnqueueOutcome outcome)
    {
        var entries = batch.Entries;
        var buffer = batch.Buffer;
        var next = start;
        lock (_lock)
        {
            for (; next < batch.Count; next++)
            {
                ref readonly var entry = ref entries[next];
                if (_closed)
                {
                    outcome.Closed++;
                    continue;
                }

                int offset;
                while ((offset = TryReserve(entry.Length)) < 0)
                {
                    if (policy == QueueOverflowPolicy.DropOldest)
                    {
                        RemoveHead();
                        outcome.DroppedOldest++;
                        continue;
                    }

                    break;
                }

                if (offset < 0)
                {
                    if (policy == QueueOverflowPolicy.Wait)
                    {
                        break;
                    }

                    outcome.DroppedNewest++;
                    continue;
                }

                buffer.AsSpan(entry.Offset, entry.Length).CopyTo(_bytes.AsSpan(offset));
                ref var slot = ref _slots[(_head + _count) % _slots.Length];
                slot = entry;
                slot.Offset = offset;
                _tail = offset + Math.Max(1, entry.Length);
                Volatile.Write(ref _count, _count + 1);
                outcome.Enqueued++;
            }
        }

        _items.Set();
        return next;
    }

    /// <summary>Moves up to <paramref name="target"/>'s capacity of datagrams into it; returns how many.</summary>
    public int Dequeue(ReceiveBatch target)
    {
        var taken = 0;
        lock (_lock)
        {
            var entries = target.Entries;
            while (_count > 0 && taken < target.Capacity)
            {
                ref readonly var slot = ref _slots[_head];
                ref var entry = ref entries[taken];
                entry = slot;
                entry.Offset = taken * target.SlotStride;
                _bytes.AsSpan(slot.Offset, slot.Length).CopyTo(target.Buffer.AsSpan(entry.Offset));
                RemoveHead();
                taken++;
            }
        }

        target.SetCount(taken);
        if (taken > 0)
        {
            _space.Set();
        }

        return taken;
    }

    /// <summary>Refuses further datagrams and empties the queue; returns how many were removed.</summary>
    public int CloseAndClear()
    {
        int removed;
        lock (_lock)
        {
            _closed = true;
            removed = _count;
            _head = 0;
            _tail = 0;
            Volatile.Write(ref _count, 0);
        }

        _space.Set();
        _items.Set();
        return removed;
    }

    public void WaitForItems(CancellationToken cancellationToken) => _items.Wait(cancellationToken);

    public ValueTask WaitForItemsAsync(CancellationToken cancellationToken) => _items.WaitAsync(cancellationToken);

    public void WaitForSpace(CancellationToken cancellationToken) => _space.Wait(cancellationToken);

    public ValueTask WaitForSpaceAsync(CancellationToken cancellationToken) => _space.WaitAsync(cancellationToken);

    /// <summary>Wakes the consumer (for example when the producer has finished).</summary>
    public void WakeConsumer() => _items.Set();

    /// <summary>Finds room for a contiguous record; -1 when the queue is full. Zero-length records take 1 byte so positions stay distinct.</summary>
    private int TryReserve(int length)
    {
        if (_count == _slots.Length)
        {
            return -1;
        }

        var size = Math.Max(1, length);
        if (_count == 0)
        {
            _tail = 0;
            return size <= _bytes.Length ? 0 : -1;
        }

        var headOffset = _slots[_head].Offset;
        if (_tail > headOffset)
        {
            if (_bytes.Length - _tail >= size)
            {
                return _tail;
            }

            // Wrap: the bytes past _tail stay unused until the head passes them.
            return headOffset >= size ? 0 : -1;
        }

        return headOffset - _tail >= size ? _tail : -1;
    }

    private void RemoveHead()
    {
        _head = (_head + 1) % _slots.Length;
        Volatile.Write(ref _count, _count - 1);
    }
}

/// <summary>What one <see cref="DatagramQueue.Enqueue"/> did with a batch's datagrams.</summary>
[StructLayout(LayoutKind.Auto)]
internal struct EnqueueOutcome
{
    public int Enqueued;
    public int DroppedNewest;
    public int DroppedOldest;
    public int Closed;
}
