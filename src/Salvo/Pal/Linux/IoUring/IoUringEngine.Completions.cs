using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// What the engine does with each completion: a datagram goes to its receiver's inbox (its buffer counted out of the
/// group), an error ends or re-arms the receive, and a receive's last completion re-arms it, parks it until buffers
/// come back, or releases its slot and descriptor.
/// </summary>
internal sealed partial class IoUringEngine
{
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
            _buffers.OnTaken(buffers);
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
            _buffers.Starve(receiver);
        }
        else
        {
            Arm(receiver);
        }
    }

    private void Release(IoUringReceiver receiver)
    {
        _buffers.Forget(receiver);
        if (receiver.Slot >= 0)
        {
            _slots[receiver.Slot] = null;
            _freeSlots.Push(receiver.Slot);
            receiver.Slot = -1;
        }

        receiver.Socket.Release();
    }
}
