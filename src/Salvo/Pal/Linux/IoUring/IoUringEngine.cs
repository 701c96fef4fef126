using System.Collections.Concurrent;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: BufferOf hands out a pointer into a buffer group that stays mapped while a receive can still use it (see
// IoUringBufferGroups and Retire); the engine's other pointer work is in IoUringEngine.Submission.cs.
/// <summary>
/// One io_uring serving many sockets: each socket's receive is one multishot IORING_OP_RECVMSG picking buffers from two
/// provided-buffer rings (small and large datagrams), and one thread owns the ring: it submits every receive (so the
/// kernel's completion work runs on it), waits in io_uring_enter, reaps completions in batches and posts each to its
/// socket's inbox. Other threads only queue commands and wake it with a NOP. This file holds the engine's life and one
/// turn of its loop; the command queue, the submissions, the completions and the buffer groups
/// (<see cref="IoUringBufferGroups"/>) are each in a file of their own.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe partial class IoUringEngine
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

    // How long a release waits for the cancelled receives' last completions: one comes back within an enter.
    private const int ReleaseWaitMilliseconds = 1000;

    /// <summary>recvmsg_out, then the name as long as the template's msg_namelen, then the control reserve.</summary>
    public const int HeaderBytes = 16 + LinuxReceiveVectors.NameStride;

    private readonly IoUringRing _ring;
    private readonly IoUringBufferGroups _buffers;
    private readonly Lock _submitLock = new();
    private readonly ConcurrentQueue<(IoUringReceiver Receiver, Command Command)> _commands = new();
    private readonly List<IoUringReceiver?> _slots = [];
    private readonly Stack<int> _freeSlots = new();
    private readonly IoUringCqe[] _completions = new IoUringCqe[256];
    private readonly Action<IoUringReceiver> _arm;
    private int _wakeRequested;
    private bool _releasing;
    private int _released;

    private IoUringEngine(IoUringRing ring, IoUringBufferGroups buffers, int index, bool drivenByCaller)
    {
        _ring = ring;
        _buffers = buffers;
        _arm = Arm;
        if (drivenByCaller)
        {
            OwnerThreadId = Environment.CurrentManagedThreadId;
            return;
        }

        var thread = new Thread(Run) { IsBackground = true, Name = $"{DatagramSocket.IoUringThreadNamePrefix} {index}" };
        thread.Start();
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

        if (IoUringOpcodeProbe.Refusal(ring, IoUringOpcodeProbe.BackendOpcodes) is { } missing)
        {
            ring.Dispose();
            refusal = missing;
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
        return new IoUringEngine(ring, new IoUringBufferGroups(small, large), index, drivenByCaller);
    }

    /// <summary>The first byte of the buffer an inbox item names.</summary>
    public byte* BufferOf(in InboxItem item) => _buffers.BufferOf(item);

    /// <summary>Hands buffers a receiver has copied out back to the kernel; any thread.</summary>
    public void ReturnBuffers(ReadOnlySpan<InboxItem> items)
    {
        if (_buffers.Return(items))
        {
            Wake();
        }
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
            _buffers.Unmap();
        }
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
        if (_buffers.HasStarved && !_releasing)
        {
            _buffers.RearmReady(_arm);
        }

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
}
