using System.Collections.Concurrent;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: submission entries come from the ring under _submitLock and are filled before the next enter; the msghdr
// templates they point at are pinned and held by the slot table until the receive's last completion.
/// <summary>
/// One io_uring serving many sockets: each socket's receive is one multishot IORING_OP_RECVMSG picking buffers from two
/// provided-buffer rings (small and large datagrams), and one thread owns the ring: it submits every receive (so the
/// kernel's completion work runs on it), waits in io_uring_enter, reaps completions in batches and posts each to its
/// socket's inbox. Other threads only queue commands and wake it with a NOP.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class IoUringEngine
{
    /// <summary>Payload bytes of a small buffer: a datagram of an Ethernet-sized path, with room to spare.</summary>
    public const int SmallPayloadBytes = 2048;

    /// <summary>Payload bytes of a large buffer: any UDP datagram (65,507 bytes over IPv4).</summary>
    public const int LargePayloadBytes = 65_536;

    // 4,096 small buffers (9 MiB): at 64 bytes on loopback a 1,024-buffer group ran dry 216 times in 2 s behind a
    // receiver that lagged by a batch or two, ending the multishot receive each time; 4,096 ran dry 3 to 19 times.
    // Large buffers are for the rare socket that receives into full-size batches: 64 of them are 4.2 MiB.
    public const int SmallBuffers = 4096;
    public const int LargeBuffers = 64;
    private const ulong WakeTag = ulong.MaxValue;

    // How long a release waits for the cancelled receives' last completions: one comes back within an enter.
    private const int ReleaseWaitMilliseconds = 1000;
    private const ulong CancelTag = ulong.MaxValue - 1;

    /// <summary>recvmsg_out, then the name as long as the template's msg_namelen, then the control reserve.</summary>
    public const int HeaderBytes = 16 + LinuxReceiveVectors.NameStride;

    private readonly IoUringRing _ring;
    private readonly ProvidedBufferRing _small;
    private readonly ProvidedBufferRing _large;
    private readonly Lock _submitLock = new();
    private readonly ConcurrentQueue<(IoUringReceiver Receiver, Command Command)> _commands = new();
    private readonly List<IoUringReceiver?> _slots = [];
    private readonly Stack<int> _freeSlots = new();
    private readonly List<IoUringReceiver> _starved = [];
    private readonly IoUringCqe[] _completions = new IoUringCqe[256];
    private int _wakeRequested;
    private int _smallAvailable;
    private int _largeAvailable;
    private int _starvedCount;
    private bool _releasing;
    private int _released;

    private IoUringEngine(IoUringRing ring, ProvidedBufferRing small, ProvidedBufferRing large, int index, bool drivenByCaller)
    {
        _ring = ring;
        _small = small;
        _large = large;
        _smallAvailable = small.Count;
        _largeAvailable = large.Count;
        if (drivenByCaller)
        {
            OwnerThreadId = Environment.CurrentManagedThreadId;
            return;
        }

        var thread = new Thread(Run) { IsBackground = true, Name = $"Salvo io_uring {index}" };
        thread.Start();
    }

    public enum Command
    {
        Arm,
        Regroup,
        Close,
    }

    /// <summary>
    /// The thread that drives this engine with <see cref="Drive"/> (its receives were armed by that thread, so the
    /// kernel's completion work runs there and no other thread is woken); null for an engine with its own thread.
    /// </summary>
    public int? OwnerThreadId { get; }

    /// <summary>Whether the owner retired the engine (<see cref="Retire"/>): it receives no more, and its ring and buffers are normally gone.</summary>
    public bool IsReleased => Volatile.Read(ref _released) != 0;

    /// <summary>Whether the calling thread drives this engine.</summary>
    public bool IsDrivenByCurrentThread => OwnerThreadId == Environment.CurrentManagedThreadId;

    /// <summary>Sets up a ring and its two buffer groups; null with the step the kernel refused.</summary>
    /// <param name="index">Names the engine's thread.</param>
    /// <param name="refusal">What the kernel refused, when null is returned.</param>
    /// <param name="smallBuffers">Small buffers in the ring (a power of two).</param>
    /// <param name="largeBuffers">Large buffers in the ring (a power of two).</param>
    /// <param name="drivenByCaller">No thread of its own: the calling thread drives it with <see cref="Drive"/>.</param>
    public static IoUringEngine? TryCreate(int index, out string? refusal, int smallBuffers = SmallBuffers, int largeBuffers = LargeBuffers, bool drivenByCaller = false)
    {
        // SUBMIT_ALL (5.18) keeps submitting past an entry that fails at submission; CQSIZE gives a completion ring
        // deep enough for bursts across thousands of sockets (the kernel keeps overflow with IORING_FEAT_NODROP). An
        // engine driven by its owner takes SINGLE_ISSUER and DEFER_TASKRUN (6.1) where the kernel has them: the kernel's
        // completion work then waits for the owner's next io_uring_enter instead of interrupting it per datagram (at 16
        // requests in flight that interruption halved the rr responder's rate).
        ReadOnlySpan<uint> shared = [IoUringConstants.IORING_SETUP_SUBMIT_ALL, 0];
        ReadOnlySpan<uint> owned =
        [
            IoUringConstants.IORING_SETUP_SINGLE_ISSUER | IoUringConstants.IORING_SETUP_DEFER_TASKRUN | IoUringConstants.IORING_SETUP_SUBMIT_ALL,
            IoUringConstants.IORING_SETUP_COOP_TASKRUN | IoUringConstants.IORING_SETUP_SUBMIT_ALL,
            IoUringConstants.IORING_SETUP_SUBMIT_ALL,
            0,
        ];
        var ring = IoUringRing.TryCreate(1024, 16_384, drivenByCaller ? owned : shared, out var errno);
        if (ring is null)
        {
            refusal = $"io_uring_setup failed with {errno}";
            return null;
        }

        var small = ProvidedBufferRing.TryRegister(ring, 0, smallBuffers, HeaderBytes + ControlMessages.ReceiveStride + SmallPayloadBytes, out errno);
        var large = small is null ? null : ProvidedBufferRing.TryRegister(ring, 1, largeBuffers, HeaderBytes + ControlMessages.ReceiveStride + LargePayloadBytes, out errno);
        if (small is null || large is null)
        {
            ring.Dispose();
            // Closing the ring unregisters the groups (and ends nothing else: no receive was armed on it yet).
            small?.Unmap();
            refusal = $"IORING_REGISTER_PBUF_RING failed with {errno} (provided-buffer rings need Linux 5.19)";
            return null;
        }

        refusal = null;
        return new IoUringEngine(ring, small, large, index, drivenByCaller);
    }

    /// <summary>The first byte of the buffer an inbox item names.</summary>
    public byte* BufferOf(in InboxItem item) => (item.Group == _small.GroupId ? _small : _large).BufferAt(item.BufferId);

    /// <summary>Queues a command for the ring's thread and wakes it.</summary>
    public void Post(IoUringReceiver receiver, Command command)
    {
        _commands.Enqueue((receiver, command));
        Wake();
    }

    /// <summary>
    /// One turn of an engine without a thread of its own, on its owner thread: queued commands, submissions, then the
    /// completions, waiting up to <paramref name="milliseconds"/> (0: not at all) when none are ready.
    /// </summary>
    public void Drive(int milliseconds)
    {
        System.Diagnostics.Debug.Assert(IsDrivenByCurrentThread, "only the owner thread drives its engine");
        Pump(milliseconds);
    }

    /// <summary>
    /// On the owner thread, when it receives no more: cancels the receives still armed, drives the ring until their last
    /// completions are in (at most <see cref="ReleaseWaitMilliseconds"/>), then closes the ring and unmaps both buffer
    /// groups. Either way the engine is retired (<see cref="IsReleased"/>: its sockets move to a shared engine at their
    /// next receive); when a receive did not end in time the ring and buffers are left mapped, not freed under the kernel.
    /// </summary>
    public void Retire()
    {
        System.Diagnostics.Debug.Assert(IsDrivenByCurrentThread, "only the owner thread retires its engine");
        _releasing = true;
        RunCommands();
        // By index: Release empties the slot, and a List's enumerator refuses a list written during the walk.
        for (var slot = 0; slot < _slots.Count; slot++)
        {
            var receiver = _slots[slot];
            if (receiver is null)
            {
                continue;
            }

            if (receiver.Armed)
            {
                Cancel(receiver);
            }
            else
            {
                // Starved, or ended by an error: no receive in the kernel.
                Release(receiver);
            }
        }

        var deadline = Environment.TickCount64 + ReleaseWaitMilliseconds;
        while (_slots.Count > _freeSlots.Count && Environment.TickCount64 < deadline)
        {
            Pump(10);
        }

        Volatile.Write(ref _released, 1);
        if (_slots.Count == _freeSlots.Count)
        {
            _ring.Dispose();
            _small.Unmap();
            _large.Unmap();
        }
    }

    /// <summary>Hands buffers a receiver has copied out back to the kernel; any thread.</summary>
    public void ReturnBuffers(ReadOnlySpan<InboxItem> items)
    {
        Span<ushort> small = stackalloc ushort[items.Length];
        Span<ushort> large = stackalloc ushort[items.Length];
        int smallCount = 0, largeCount = 0;
        foreach (var item in items)
        {
            if (item.Error != Errno.None)
            {
                continue;
            }

            if (item.Group == _small.GroupId)
            {
                small[smallCount++] = item.BufferId;
            }
            else
            {
                large[largeCount++] = item.BufferId;
            }
        }

        if (smallCount > 0)
        {
            _small.Return(small[..smallCount]);
            Interlocked.Add(ref _smallAvailable, smallCount);
        }

        if (largeCount > 0)
        {
            _large.Return(large[..largeCount]);
            Interlocked.Add(ref _largeAvailable, largeCount);
        }

        if (smallCount + largeCount > 0 && Volatile.Read(ref _starvedCount) > 0)
        {
            Wake();
        }
    }

    private void Wake()
    {
        // An engine driven by its owner is woken by the socket itself: dispose shuts the socket down, which ends the
        // receive, and the owner's waits last one slice at most (its ring may refuse other threads' submissions).
        if (OwnerThreadId is not null || Interlocked.Exchange(ref _wakeRequested, 1) != 0)
        {
            return;
        }

        lock (_submitLock)
        {
            var sqe = NextSqe();
            sqe->Opcode = IoUringConstants.IORING_OP_NOP;
            sqe->UserData = WakeTag;
            _ = _ring.Enter(0);
        }
    }

    /// <summary>A free submission entry; submits what is queued first when all are taken. Under <see cref="_submitLock"/>.</summary>
    private IoUringSqe* NextSqe()
    {
        var sqe = _ring.TryGetSqe();
        while (sqe is null)
        {
            _ = _ring.Enter(0);
            sqe = _ring.TryGetSqe();
            if (sqe is null)
            {
                Thread.Yield();
            }
        }

        return sqe;
    }

    private void Run()
    {
        while (true)
        {
            Pump(Timeout.Infinite);
        }
    }

    /// <summary>One turn: commands, re-arms, submissions, then the completions ready, waiting up to <paramref name="milliseconds"/> (-1: forever) for one.</summary>
    private void Pump(int milliseconds)
    {
        RunCommands();
        RearmStarved();
        int count;
        if (OwnerThreadId is null)
        {
            lock (_submitLock)
            {
                _ = _ring.Enter(0);
            }

            count = _ring.Reap(_completions);
            if (count == 0 && milliseconds != 0)
            {
                // EINTR and the like: the caller looks at the ring again either way.
                _ = _ring.WaitForCompletions(1);
                count = _ring.Reap(_completions);
            }
        }
        else
        {
            lock (_submitLock)
            {
                // The owner submits and, when nothing is ready, waits in the same system call; deferred completion work
                // runs only in its io_uring_enter, so it enters even with nothing to submit. ETIME: nothing came.
                _ = milliseconds == 0 || _ring.HasCompletions ? _ring.EnterForCompletions() : _ring.EnterAndWait(milliseconds);
            }

            count = _ring.Reap(_completions);
        }

        for (var i = 0; i < count; i++)
        {
            Dispatch(_completions[i]);
        }
    }

    private void RunCommands()
    {
        while (_commands.TryDequeue(out var next))
        {
            var receiver = next.Receiver;
            switch (next.Command)
            {
                case Command.Arm when !receiver.IsDisposed && !receiver.Armed && !receiver.Starved && !_releasing:
                    Arm(receiver);
                    break;
                case Command.Regroup when receiver.Armed && receiver.ArmedBuffers != _large:
                    // Cancelled, the receive ends; its last completion re-arms it in the large group.
                    Cancel(receiver);
                    break;
                case Command.Close when receiver.Armed:
                    Cancel(receiver);
                    break;
                case Command.Close:
                    Release(receiver);
                    break;
            }
        }
    }

    private void RearmStarved()
    {
        if (_starved.Count == 0 || _releasing)
        {
            return;
        }

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
                Arm(receiver);
            }
        }

        Volatile.Write(ref _starvedCount, _starved.Count);
    }

    private void Arm(IoUringReceiver receiver)
    {
        try
        {
            receiver.Socket.Acquire();
        }
        catch (ObjectDisposedException)
        {
            // Closed before its receive was armed: nothing to receive, nothing to hold; a slot it has goes at its close.
            return;
        }

        if (receiver.Slot < 0)
        {
            receiver.Slot = _freeSlots.Count > 0 ? _freeSlots.Pop() : _slots.Count;
            if (receiver.Slot == _slots.Count)
            {
                _slots.Add(receiver);
            }
            else
            {
                _slots[receiver.Slot] = receiver;
            }
        }

        var buffers = receiver.WantsLarge ? _large : _small;
        receiver.ArmedBuffers = buffers;
        receiver.Armed = true;
        lock (_submitLock)
        {
            var sqe = NextSqe();
            sqe->Opcode = IoUringConstants.IORING_OP_RECVMSG;
            sqe->Fd = receiver.Socket.Descriptor;
            sqe->Address = (ulong)receiver.Template;
            sqe->IoPriority = IoUringConstants.IORING_RECV_MULTISHOT;
            sqe->Flags = IoUringConstants.IOSQE_BUFFER_SELECT;
            sqe->BufferGroup = buffers.GroupId;
            sqe->UserData = (ulong)receiver.Slot + 1;
            if (OwnerThreadId is not null)
            {
                // Driven by its owner: submitted now, and the descriptor is needed only until then (the kernel holds the
                // file itself); a dispose on another thread then never waits for the owner to come back.
                _ = _ring.Enter(0);
                receiver.Socket.Release();
            }
        }
    }

    private void Cancel(IoUringReceiver receiver)
    {
        lock (_submitLock)
        {
            var sqe = NextSqe();
            sqe->Opcode = IoUringConstants.IORING_OP_ASYNC_CANCEL;
            sqe->Fd = -1;
            sqe->Address = (ulong)receiver.Slot + 1;
            sqe->UserData = CancelTag;
        }
    }

    private void Release(IoUringReceiver receiver)
    {
        if (receiver.Starved)
        {
            receiver.Starved = false;
            _starved.Remove(receiver);
            Volatile.Write(ref _starvedCount, _starved.Count);
        }

        if (receiver.Slot >= 0)
        {
            _slots[receiver.Slot] = null;
            _freeSlots.Push(receiver.Slot);
            receiver.Slot = -1;
        }

        receiver.Socket.Release();
    }

    private void Dispatch(in IoUringCqe completion)
    {
        if (completion.UserData == WakeTag)
        {
            Volatile.Write(ref _wakeRequested, 0);
            return;
        }

        if (completion.UserData == CancelTag || completion.UserData == 0 || (int)(completion.UserData - 1) >= _slots.Count)
        {
            return;
        }

        var receiver = _slots[(int)(completion.UserData - 1)];
        if (receiver is null)
        {
            return;
        }

        var more = (completion.Flags & IoUringConstants.IORING_CQE_F_MORE) != 0;
        var starved = false;
        if ((completion.Flags & IoUringConstants.IORING_CQE_F_BUFFER) != 0)
        {
            var buffers = receiver.ArmedBuffers!;
            Interlocked.Decrement(ref buffers == _small ? ref _smallAvailable : ref _largeAvailable);
            var item = new InboxItem(buffers.GroupId, (ushort)(completion.Flags >> IoUringConstants.IORING_CQE_BUFFER_SHIFT), completion.Result, Errno.None);
            if (!receiver.Inbox.Post(item))
            {
                ReturnBuffers([item]);
            }
        }
        else if (completion.Result < 0)
        {
            var errno = (Errno)(-completion.Result);
            switch (errno)
            {
                case Errno.ENOBUFS:
                    // Every buffer of the group is out: the receive ended; it is armed again once some come back.
                    starved = true;
                    break;
                case Errno.ECANCELED:
                    break;
                case Errno.ECONNREFUSED or Errno.EHOSTUNREACH or Errno.ENETUNREACH:
                    // An ICMP error on a connected socket: counted, and receiving goes on (as on the batched backend).
                    receiver.Counters.OnIcmpError();
                    break;
                default:
                    // Reported to the next receive, which arms the socket again: an error that repeats (a kernel without
                    // multishot recvmsg answers EINVAL) costs one completion per receive call, not a loop here.
                    _ = receiver.Inbox.Post(new InboxItem(0, 0, 0, errno));
                    receiver.Armed = false;
                    receiver.RearmOnNextReceive();
                    if (_releasing)
                    {
                        Release(receiver);
                    }

                    return;
            }
        }

        if (more)
        {
            return;
        }

        receiver.Armed = false;
        if (receiver.IsDisposed || _releasing)
        {
            Release(receiver);
        }
        else if (starved)
        {
            receiver.Starved = true;
            _starved.Add(receiver);

            // A full fence, not a release: this store and the engine's later reads of the available counts must not
            // pass each other (x86 reorders a store with a later load), or this thread and one returning buffers
            // (Interlocked.Add, then a read of this count) could each miss the other's write, and nobody would wake
            // the engine to re-arm.
            Interlocked.Exchange(ref _starvedCount, _starved.Count);
        }
        else
        {
            Arm(receiver);
        }
    }
}
