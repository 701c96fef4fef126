using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: BufferOf only names a buffer of one of the two rings, by an id the kernel handed over in a completion.
/// <summary>
/// An engine's two provided-buffer groups (small and large datagrams), how many buffers of each the kernel holds, and
/// the receivers whose multishot receive ended for want of buffers (ENOBUFS), to be armed again once buffers come
/// back. Buffers come back from any thread; the starved list belongs to the engine's thread.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class IoUringBufferGroups(ProvidedBufferRing small, ProvidedBufferRing large)
{
    private readonly List<IoUringReceiver> _starved = [];
    private int _smallAvailable = small.Count;
    private int _largeAvailable = large.Count;
    private int _starvedCount;

    /// <summary>The group of full-size datagrams.</summary>
    public ProvidedBufferRing Large => large;

    /// <summary>Whether a receiver waits for buffers; engine thread only.</summary>
    public bool HasStarved => _starved.Count > 0;

    /// <summary>The group <paramref name="receiver"/>'s batches need.</summary>
    public ProvidedBufferRing For(IoUringReceiver receiver) => receiver.WantsLarge ? large : small;

    /// <summary>The first byte of the buffer an inbox item names.</summary>
    public byte* BufferOf(in InboxItem item) => (item.Group == small.GroupId ? small : large).BufferAt(item.BufferId);

    /// <summary>A completion took a buffer of <paramref name="buffers"/>.</summary>
    public void OnTaken(ProvidedBufferRing buffers) => Interlocked.Decrement(ref buffers == small ? ref _smallAvailable : ref _largeAvailable);

    /// <summary>
    /// Hands buffers a receiver has copied out back to the kernel; any thread. True when some went back while a receiver
    /// waits for buffers: the engine must be woken to arm it again.
    /// </summary>
    public bool Return(ReadOnlySpan<InboxItem> items)
    {
        Span<ushort> smallIds = stackalloc ushort[items.Length];
        Span<ushort> largeIds = stackalloc ushort[items.Length];
        int smallCount = 0, largeCount = 0;
        foreach (var item in items)
        {
            if (item.Error != Errno.None)
            {
                continue;
            }

            if (item.Group == small.GroupId)
            {
                smallIds[smallCount++] = item.BufferId;
            }
            else
            {
                largeIds[largeCount++] = item.BufferId;
            }
        }

        if (smallCount > 0)
        {
            small.Return(smallIds[..smallCount]);
            Interlocked.Add(ref _smallAvailable, smallCount);
        }

        if (largeCount > 0)
        {
            large.Return(largeIds[..largeCount]);
            Interlocked.Add(ref _largeAvailable, largeCount);
        }

        return smallCount + largeCount > 0 && Volatile.Read(ref _starvedCount) > 0;
    }

    /// <summary>Engine thread: <paramref name="receiver"/>'s receive ended because every buffer of its group is out.</summary>
    public void Starve(IoUringReceiver receiver)
    {
        receiver.Starved = true;
        _starved.Add(receiver);

        // A full fence, not a release: this store and the engine's later reads of the available counts must not
        // pass each other (x86 reorders a store with a later load), or this thread and one returning buffers
        // (Interlocked.Add, then a read of this count) could each miss the other's write, and nobody would wake
        // the engine to re-arm.
        Interlocked.Exchange(ref _starvedCount, _starved.Count);
    }

    /// <summary>Engine thread: a receiver that goes away stops waiting for buffers.</summary>
    public void Forget(IoUringReceiver receiver)
    {
        if (receiver.Starved)
        {
            receiver.Starved = false;
            _starved.Remove(receiver);
            Volatile.Write(ref _starvedCount, _starved.Count);
        }
    }

    /// <summary>Engine thread: every starved receiver whose group has buffers again stops waiting and, unless disposed, goes to <paramref name="arm"/>.</summary>
    public void RearmReady(Action<IoUringReceiver> arm)
    {
        for (var i = _starved.Count - 1; i >= 0; i--)
        {
            var receiver = _starved[i];
            var available = receiver.WantsLarge ? Volatile.Read(ref _largeAvailable) : Volatile.Read(ref _smallAvailable);
            if (available <= 0)
            {
                continue;
            }

            _starved.RemoveAt(i);
            receiver.Starved = false;
            if (!receiver.IsDisposed)
            {
                arm(receiver);
            }
        }

        Volatile.Write(ref _starvedCount, _starved.Count);
    }

    /// <summary>Unmaps both groups, once the ring that used them is closed.</summary>
    public void Unmap()
    {
        small.Unmap();
        large.Unmap();
    }
}
