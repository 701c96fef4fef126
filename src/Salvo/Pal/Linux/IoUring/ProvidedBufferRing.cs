using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: the entry ring and the buffers are one anonymous mapping made in TryRegister and never unmapped while the
// io_uring that reads it has a receive armed (Unmap comes after the last one ended, under the lock Return takes); every index is masked by Count - 1 or checked
// against Count.
/// <summary>
/// A provided-buffer ring (IORING_REGISTER_PBUF_RING, kernel 5.19): <see cref="Count"/> buffers of
/// <see cref="BufferLength"/> bytes that the kernel picks from as datagrams arrive, so one multishot receive per socket
/// needs no buffer of its own. Consumers hand buffers back with <see cref="Return"/> once they have copied them out.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class ProvidedBufferRing
{
    private readonly IoUringBuf* _entries;
    private readonly byte* _buffers;
    private readonly ushort* _tail;
    private readonly nuint _mappedLength;
    private bool _unmapped;
    private readonly Lock _returnLock = new();
    private ushort _localTail;

    private ProvidedBufferRing(ushort groupId, int count, int bufferLength, byte* memory, nuint mappedLength)
    {
        _mappedLength = mappedLength;
        GroupId = groupId;
        Count = count;
        BufferLength = bufferLength;
        _entries = (IoUringBuf*)memory;
        _buffers = memory + (count * sizeof(IoUringBuf));
        // struct io_uring_buf_ring overlays its 16-bit tail on the reserved field of entry 0.
        _tail = (ushort*)(memory + 14);
    }

    public ushort GroupId { get; }

    /// <summary>Buffers in the ring; a power of two.</summary>
    public int Count { get; }

    public int BufferLength { get; }

    /// <summary>Maps and registers a ring of <paramref name="count"/> buffers with every buffer in it; null with the errno when refused.</summary>
    public static ProvidedBufferRing? TryRegister(IoUringRing ring, ushort groupId, int count, int bufferLength, out Errno errno)
    {
        var length = (nuint)(((long)count * sizeof(IoUringBuf)) + ((long)count * bufferLength));
        // Anonymous memory is page-aligned, as the kernel requires of the entry ring; pages become resident as buffers
        // are first used, so a group larger than a socket's traffic costs address space, not memory.
        var memory = (byte*)Libc.Mmap(null, length, Constants.PROT_READ | Constants.PROT_WRITE,
            Constants.MAP_PRIVATE | Constants.MAP_ANONYMOUS, -1, 0);
        if (memory == (byte*)-1)
        {
            errno = Libc.LastErrno;
            return null;
        }

        var registration = new IoUringBufReg { RingAddress = (ulong)memory, RingEntries = (uint)count, GroupId = groupId };
        // Safety: registration lives on this frame for the call; the kernel keeps the ring's address, which stays mapped.
        if (IoUringSyscalls.Register(ring.Descriptor, IoUringConstants.IORING_REGISTER_PBUF_RING, &registration, 1) < 0)
        {
            errno = Libc.LastErrno;
            _ = Libc.Munmap(memory, length);
            return null;
        }

        var buffers = new ProvidedBufferRing(groupId, count, bufferLength, memory, length);
        for (var id = 0; id < count; id++)
        {
            buffers.Add((ushort)id);
        }

        buffers.Publish();
        errno = Errno.None;
        return buffers;
    }

    /// <summary>
    /// Unmaps the entries and the buffers; only once the ring they were registered with has no receive left that could
    /// pick one. A <see cref="Return"/> after it (a receiver disposed on another thread) does nothing.
    /// </summary>
    public void Unmap()
    {
        lock (_returnLock)
        {
            if (!_unmapped)
            {
                _unmapped = true;
                _ = Libc.Munmap(_entries, _mappedLength);
            }
        }
    }

    /// <summary>The buffer the kernel named in a completion's flags.</summary>
    public byte* BufferAt(ushort bufferId) => _buffers + ((long)bufferId * BufferLength);

    /// <summary>Hands buffers back to the kernel; any thread.</summary>
    public void Return(ReadOnlySpan<ushort> bufferIds)
    {
        lock (_returnLock)
        {
            if (_unmapped)
            {
                return;
            }

            foreach (var id in bufferIds)
            {
                Add(id);
            }

            Publish();
        }
    }

    private void Add(ushort bufferId)
    {
        ref var entry = ref _entries[_localTail & (Count - 1)];
        entry.Address = (ulong)BufferAt(bufferId);
        entry.Length = (uint)BufferLength;
        entry.BufferId = bufferId;
        _localTail++;
    }

    // Release: the entries are visible to the kernel before the tail that covers them.
    private void Publish() => Volatile.Write(ref *_tail, _localTail);
}
