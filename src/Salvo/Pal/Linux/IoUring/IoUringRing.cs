using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: every pointer below addresses one of the three mappings io_uring_setup(2) describes (the rings and the entry
// array), made in TryCreate with the lengths the kernel gave and unmapped only in Dispose; indices are masked by the
// ring's mask, which the kernel sets to entries - 1.
/// <summary>
/// One io_uring instance: its submission and completion rings mapped into this process. Not thread-safe: one thread
/// fills submissions at a time (its owner, or whoever holds the owner's lock), and one thread reaps completions.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class IoUringRing : IDisposable
{
    private readonly int _fd;
    private readonly byte* _sqRing;
    private readonly nuint _sqRingLength;
    private readonly byte* _cqRing;
    private readonly nuint _cqRingLength;
    private readonly IoUringSqe* _sqes;
    private readonly nuint _sqesLength;
    private readonly uint* _sqHead;
    private readonly uint* _sqTail;
    private readonly uint* _sqArray;
    private readonly uint _sqMask;
    private readonly uint* _cqHead;
    private readonly uint* _cqTail;
    private readonly uint _cqMask;
    private readonly IoUringCqe* _cqes;
    private uint _sqLocalTail;
    private uint _unsubmitted;
    private int _disposed;

    private IoUringRing(int fd, in IoUringParams parameters, byte* sqRing, nuint sqRingLength, byte* cqRing, nuint cqRingLength, IoUringSqe* sqes, nuint sqesLength)
    {
        _fd = fd;
        _sqRing = sqRing;
        _sqRingLength = sqRingLength;
        _cqRing = cqRing;
        _cqRingLength = cqRingLength;
        _sqes = sqes;
        _sqesLength = sqesLength;
        SqEntries = parameters.SqEntries;
        CqEntries = parameters.CqEntries;
        Flags = parameters.Flags;
        _sqHead = (uint*)(sqRing + parameters.SqOffsets.Head);
        _sqTail = (uint*)(sqRing + parameters.SqOffsets.Tail);
        _sqArray = (uint*)(sqRing + parameters.SqOffsets.Array);
        _sqMask = *(uint*)(sqRing + parameters.SqOffsets.RingMask);
        _cqHead = (uint*)(cqRing + parameters.CqOffsets.Head);
        _cqTail = (uint*)(cqRing + parameters.CqOffsets.Tail);
        _cqMask = *(uint*)(cqRing + parameters.CqOffsets.RingMask);
        _cqes = (IoUringCqe*)(cqRing + parameters.CqOffsets.Cqes);
        _sqLocalTail = *_sqTail;
    }

    ~IoUringRing() => Release();

    public int Descriptor => _fd;

    public uint SqEntries { get; }

    public uint CqEntries { get; }

    /// <summary>The setup flags the kernel accepted.</summary>
    public uint Flags { get; }

    /// <summary>Submission slots free now (the kernel consumes them at each enter).</summary>
    public uint FreeSubmissionSlots => SqEntries - (_sqLocalTail - Volatile.Read(ref *_sqHead));

    /// <summary>
    /// Sets up a ring, trying each flag set in turn (newer kernels take more); null with the last errno when the kernel
    /// refuses them all (io_uring disabled by kernel.io_uring_disabled or a seccomp filter: EPERM or ENOSYS).
    /// </summary>
    public static IoUringRing? TryCreate(uint entries, uint completionEntries, ReadOnlySpan<uint> flagSets, out Errno errno)
    {
        errno = Errno.None;
        foreach (var flags in flagSets)
        {
            var parameters = new IoUringParams { Flags = flags | (completionEntries > 0 ? IoUringConstants.IORING_SETUP_CQSIZE : 0), CqEntries = completionEntries };
            // Safety: parameters lives on this frame for the call; the kernel writes the ring offsets into it.
            var fd = IoUringSyscalls.Setup(entries, &parameters);
            if (fd < 0)
            {
                errno = Libc.LastErrno;
                if (errno == Errno.EINVAL)
                {
                    continue;
                }

                return null;
            }

            var ring = TryMap(fd, parameters, out errno);
            if (ring is not null)
            {
                return ring;
            }

            _ = Libc.Close(fd);
            return null;
        }

        return null;
    }

    private static IoUringRing? TryMap(int fd, in IoUringParams parameters, out Errno errno)
    {
        // The rings' lengths as io_uring_setup(2) describes them: the SQ ring ends with its index array, the CQ ring
        // with its entries; with IORING_FEAT_SINGLE_MMAP (5.4+) one mapping holds both.
        var sqLength = (nuint)(parameters.SqOffsets.Array + (parameters.SqEntries * sizeof(uint)));
        var cqLength = (nuint)(parameters.CqOffsets.Cqes + (parameters.CqEntries * (uint)sizeof(IoUringCqe)));
        var single = (parameters.Features & IoUringConstants.IORING_FEAT_SINGLE_MMAP) != 0;
        if (single)
        {
            sqLength = cqLength = Math.Max(sqLength, cqLength);
        }

        const int protection = Constants.PROT_READ | Constants.PROT_WRITE;
        const int flags = Constants.MAP_SHARED | Constants.MAP_POPULATE;
        var sqRing = (byte*)Libc.Mmap(null, sqLength, protection, flags, fd, IoUringConstants.IORING_OFF_SQ_RING);
        if (sqRing == (byte*)-1)
        {
            errno = Libc.LastErrno;
            return null;
        }

        var cqRing = sqRing;
        if (!single)
        {
            cqRing = (byte*)Libc.Mmap(null, cqLength, protection, flags, fd, IoUringConstants.IORING_OFF_CQ_RING);
            if (cqRing == (byte*)-1)
            {
                errno = Libc.LastErrno;
                _ = Libc.Munmap(sqRing, sqLength);
                return null;
            }
        }

        var sqesLength = (nuint)(parameters.SqEntries * (uint)sizeof(IoUringSqe));
        var sqes = (IoUringSqe*)Libc.Mmap(null, sqesLength, protection, flags, fd, IoUringConstants.IORING_OFF_SQES);
        if (sqes == (IoUringSqe*)-1)
        {
            errno = Libc.LastErrno;
            _ = Libc.Munmap(sqRing, sqLength);
            if (!single)
            {
                _ = Libc.Munmap(cqRing, cqLength);
            }

            return null;
        }

        errno = Errno.None;
        return new IoUringRing(fd, parameters, sqRing, sqLength, cqRing, single ? 0 : cqLength, sqes, sqesLength);
    }

    /// <summary>The next free submission entry, zeroed; null when all are taken until the next enter.</summary>
    public IoUringSqe* TryGetSqe()
    {
        if (FreeSubmissionSlots == 0)
        {
            return null;
        }

        var index = _sqLocalTail & _sqMask;
        var sqe = &_sqes[index];
        *sqe = default;
        _sqArray[index] = index;
        _sqLocalTail++;
        _unsubmitted++;
        return sqe;
    }

    /// <summary>
    /// Publishes the entries filled since the last call and enters the kernel: submits them and, when
    /// <paramref name="waitFor"/> > 0, waits until that many completions are ready. Returns the errno (EINTR when a
    /// signal cut the wait short; the caller looks at the completion ring either way).
    /// </summary>
    public Errno Enter(uint waitFor)
    {
        // Release: the entries' contents are visible to the kernel before the tail that covers them.
        Volatile.Write(ref *_sqTail, _sqLocalTail);
        var toSubmit = _unsubmitted;
        if (toSubmit == 0 && waitFor == 0)
        {
            return Errno.None;
        }

        var result = IoUringSyscalls.Enter(_fd, toSubmit, waitFor, waitFor > 0 ? IoUringConstants.IORING_ENTER_GETEVENTS : 0);
        if (result < 0)
        {
            return Libc.LastErrno;
        }

        _unsubmitted -= (uint)result;
        return Errno.None;
    }

    /// <summary>Submits what is queued and runs the completion work the kernel deferred to this thread, without waiting.</summary>
    public Errno EnterForCompletions()
    {
        Volatile.Write(ref *_sqTail, _sqLocalTail);
        var result = IoUringSyscalls.Enter(_fd, _unsubmitted, 0, IoUringConstants.IORING_ENTER_GETEVENTS);
        if (result < 0)
        {
            return Libc.LastErrno;
        }

        _unsubmitted -= (uint)result;
        return Errno.None;
    }

    /// <summary>
    /// Waits until <paramref name="count"/> completions are ready without submitting, so a thread may wait while
    /// others fill submissions under their lock; returns the errno (EINTR when a signal cut the wait short).
    /// </summary>
    public Errno WaitForCompletions(uint count) =>
        IoUringSyscalls.Enter(_fd, 0, count, IoUringConstants.IORING_ENTER_GETEVENTS) < 0 ? Libc.LastErrno : Errno.None;

    /// <summary>
    /// Submits what is queued and waits up to <paramref name="milliseconds"/> for one completion, in one system call;
    /// returns the errno (ETIME on timeout).
    /// </summary>
    public Errno EnterAndWait(int milliseconds)
    {
        Volatile.Write(ref *_sqTail, _sqLocalTail);
        var timeout = new KernelTimespec { Seconds = milliseconds / 1000, Nanoseconds = milliseconds % 1000 * 1_000_000L };
        // Safety: the timespec and the argument live on this frame for the call.
        var argument = new IoUringGetEventsArg { Timeout = (ulong)&timeout };
        var result = IoUringSyscalls.Enter(_fd, _unsubmitted, 1, IoUringConstants.IORING_ENTER_GETEVENTS, &argument);
        if (result < 0)
        {
            return Libc.LastErrno;
        }

        _unsubmitted -= (uint)result;
        return Errno.None;
    }

    /// <summary>Copies up to <paramref name="into"/>.Length ready completions and frees their slots; returns the count.</summary>
    public int Reap(Span<IoUringCqe> into)
    {
        var head = *_cqHead;
        // Acquire: the entries up to the tail are written before the tail is.
        var ready = Volatile.Read(ref *_cqTail) - head;
        var count = (int)Math.Min(ready, (uint)into.Length);
        for (var i = 0; i < count; i++)
        {
            into[i] = _cqes[(head + (uint)i) & _cqMask];
        }

        Volatile.Write(ref *_cqHead, head + (uint)count);
        return count;
    }

    /// <summary>Whether a completion is ready to reap.</summary>
    public bool HasCompletions => Volatile.Read(ref *_cqTail) != *_cqHead;

    public void Dispose()
    {
        Release();
        GC.SuppressFinalize(this);
    }

    private void Release()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _ = Libc.Munmap(_sqes, _sqesLength);
        if (_cqRingLength != 0)
        {
            _ = Libc.Munmap(_cqRing, _cqRingLength);
        }

        _ = Libc.Munmap(_sqRing, _sqRingLength);
        _ = Libc.Close(_fd);
    }
}
