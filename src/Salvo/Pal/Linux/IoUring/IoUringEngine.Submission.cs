using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: submission entries come from the ring under _submitLock and are filled before the next enter; the msghdr
// templates they point at are pinned and held by the slot table until the receive's last completion.
/// <summary>
/// What the engine submits: a receiver's multishot receive (in a slot of its own, whose number is the receive's
/// user data), its cancellation, and the NOP that wakes the ring's thread; all under the submit lock.
/// </summary>
internal sealed unsafe partial class IoUringEngine
{
    private const ulong WakeTag = ulong.MaxValue;
    private const ulong CancelTag = ulong.MaxValue - 1;

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

        var buffers = _buffers.For(receiver);
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
}
