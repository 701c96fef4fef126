using System.Runtime.CompilerServices;
using Salvo.Interop.Linux;

namespace Salvo.Tests.Interop;

/// <summary>The blittable structs match the sizes and offsets read off the kernel headers (x86-64 glibc).</summary>
public sealed class LinuxAbiTests
{
    [Fact]
    public void StructSizes_MatchTheCHeaders()
    {
        Assert.Equal(16, Unsafe.SizeOf<IOVec>());
        Assert.Equal(56, Unsafe.SizeOf<MsgHdr>());
        Assert.Equal(64, Unsafe.SizeOf<MMsgHdr>());
        Assert.Equal(16, Unsafe.SizeOf<CMsgHdr>());
        Assert.Equal(8, Unsafe.SizeOf<PollFd>());
        Assert.Equal(16, Unsafe.SizeOf<TimeVal>());
    }

    [Fact]
    public unsafe void FieldOffsets_MatchTheCHeaders()
    {
        MMsgHdr message = default;
        var start = (byte*)&message;
        Assert.Equal(0, (byte*)&message.Header.Name - start);
        Assert.Equal(8, (byte*)&message.Header.NameLength - start);
        Assert.Equal(16, (byte*)&message.Header.IOVecs - start);
        Assert.Equal(24, (byte*)&message.Header.IOVecCount - start);
        Assert.Equal(32, (byte*)&message.Header.Control - start);
        Assert.Equal(40, (byte*)&message.Header.ControlLength - start);
        Assert.Equal(48, (byte*)&message.Header.Flags - start);
        Assert.Equal(56, (byte*)&message.Length - start);

        CMsgHdr control = default;
        var controlStart = (byte*)&control;
        Assert.Equal(8, (byte*)&control.Level - controlStart);
        Assert.Equal(12, (byte*)&control.Type - controlStart);
    }

    [Fact]
    public void Constants_MatchTheKernelHeaders()
    {
        Assert.Equal(103, Constants.UDP_SEGMENT);
        Assert.Equal(104, Constants.UDP_GRO);
        Assert.Equal(15, Constants.SO_REUSEPORT);
        Assert.Equal(24, Constants.IP_BIND_ADDRESS_NO_PORT);
        Assert.Equal(46, Constants.SO_BUSY_POLL);
        Assert.Equal(32, Constants.MSG_TRUNC);
        Assert.Equal(8, Constants.MSG_CTRUNC);
        Assert.Equal(64, Constants.MSG_DONTWAIT);
        Assert.Equal(65536, Constants.MSG_WAITFORONE);
        Assert.Equal(20, Constants.SO_RCVTIMEO);
        Assert.Equal(3, Constants.F_GETFL);
        Assert.Equal(0x800, Constants.O_NONBLOCK);
        Assert.Equal(8, Constants.IP_PKTINFO);
        Assert.Equal(49, Constants.IPV6_RECVPKTINFO);
        Assert.Equal(50, Constants.IPV6_PKTINFO);
        Assert.Equal(111, (int)Errno.ECONNREFUSED);
        Assert.Equal(90, (int)Errno.EMSGSIZE);
        Assert.Equal(11, (int)Errno.EAGAIN);
    }

    [Fact]
    public void IoUringStructSizes_MatchTheKernelHeader()
    {
        // include/uapi/linux/io_uring.h, read on this kernel (6.18) with sizeof.
        Assert.Equal(120, Unsafe.SizeOf<IoUringParams>());
        Assert.Equal(40, Unsafe.SizeOf<IoSqRingOffsets>());
        Assert.Equal(40, Unsafe.SizeOf<IoCqRingOffsets>());
        Assert.Equal(64, Unsafe.SizeOf<IoUringSqe>());
        Assert.Equal(16, Unsafe.SizeOf<IoUringCqe>());
        Assert.Equal(40, Unsafe.SizeOf<IoUringBufReg>());
        Assert.Equal(16, Unsafe.SizeOf<IoUringBuf>());
        Assert.Equal(16, Unsafe.SizeOf<IoUringRecvMsgOut>());
        Assert.Equal(24, Unsafe.SizeOf<IoUringGetEventsArg>());
        Assert.Equal(16, Unsafe.SizeOf<KernelTimespec>());
        Assert.Equal(16, Unsafe.SizeOf<IoUringProbeHeader>());
        Assert.Equal(8, Unsafe.SizeOf<IoUringProbeOp>());
    }

    [Fact]
    public unsafe void IoUringFieldOffsets_MatchTheKernelHeader()
    {
        IoUringParams parameters = default;
        var p = (byte*)&parameters;
        Assert.Equal(20, (byte*)&parameters.Features - p);
        Assert.Equal(40, (byte*)&parameters.SqOffsets - p);
        Assert.Equal(80, (byte*)&parameters.CqOffsets - p);
        Assert.Equal(24, (byte*)&parameters.SqOffsets.Array - (byte*)&parameters.SqOffsets);
        Assert.Equal(32, (byte*)&parameters.SqOffsets.UserAddress - (byte*)&parameters.SqOffsets);
        Assert.Equal(16, (byte*)&parameters.CqOffsets.Overflow - (byte*)&parameters.CqOffsets);
        Assert.Equal(20, (byte*)&parameters.CqOffsets.Cqes - (byte*)&parameters.CqOffsets);

        IoUringSqe sqe = default;
        var s = (byte*)&sqe;
        Assert.Equal(2, (byte*)&sqe.IoPriority - s);
        Assert.Equal(4, (byte*)&sqe.Fd - s);
        Assert.Equal(16, (byte*)&sqe.Address - s);
        Assert.Equal(24, (byte*)&sqe.Length - s);
        Assert.Equal(28, (byte*)&sqe.OpFlags - s);
        Assert.Equal(32, (byte*)&sqe.UserData - s);
        Assert.Equal(40, (byte*)&sqe.BufferGroup - s);
        Assert.Equal(42, (byte*)&sqe.Personality - s);
        Assert.Equal(44, (byte*)&sqe.FileIndex - s);

        IoUringCqe cqe = default;
        Assert.Equal(8, (byte*)&cqe.Result - (byte*)&cqe);
        Assert.Equal(12, (byte*)&cqe.Flags - (byte*)&cqe);

        IoUringBufReg registration = default;
        Assert.Equal(8, (byte*)&registration.RingEntries - (byte*)&registration);
        Assert.Equal(12, (byte*)&registration.GroupId - (byte*)&registration);

        // The buffer ring's 16-bit tail overlays the reserved field of entry 0 (struct io_uring_buf_ring).
        IoUringBuf buffer = default;
        Assert.Equal(12, (byte*)&buffer.BufferId - (byte*)&buffer);
        Assert.Equal(14, (byte*)&buffer.Reserved - (byte*)&buffer);

        IoUringGetEventsArg wait = default;
        Assert.Equal(12, (byte*)&wait.MinWaitMicroseconds - (byte*)&wait);
        Assert.Equal(16, (byte*)&wait.Timeout - (byte*)&wait);

        IoUringRecvMsgOut output = default;
        Assert.Equal(8, (byte*)&output.PayloadLength - (byte*)&output);
        Assert.Equal(12, (byte*)&output.Flags - (byte*)&output);

        IoUringProbeHeader probe = default;
        Assert.Equal(1, (byte*)&probe.OpsLength - (byte*)&probe);

        IoUringProbeOp op = default;
        Assert.Equal(2, (byte*)&op.Flags - (byte*)&op);
    }

    [Fact]
    public void IoUringConstants_MatchTheKernelHeader()
    {
        Assert.Equal(425, IoUringConstants.SYS_io_uring_setup);
        Assert.Equal(8u, IoUringConstants.IORING_REGISTER_PROBE);
        Assert.Equal(1, IoUringConstants.IO_URING_OP_SUPPORTED);
        Assert.Equal(426, IoUringConstants.SYS_io_uring_enter);
        Assert.Equal(427, IoUringConstants.SYS_io_uring_register);
        Assert.Equal(0, IoUringConstants.IORING_OP_NOP);
        Assert.Equal(9, IoUringConstants.IORING_OP_SENDMSG);
        Assert.Equal(10, IoUringConstants.IORING_OP_RECVMSG);
        Assert.Equal(14, IoUringConstants.IORING_OP_ASYNC_CANCEL);
        Assert.Equal(4, IoUringConstants.IOSQE_IO_LINK);
        Assert.Equal(32, IoUringConstants.IOSQE_BUFFER_SELECT);
        Assert.Equal(64, IoUringConstants.IOSQE_CQE_SKIP_SUCCESS);
        Assert.Equal(2, IoUringConstants.IORING_RECV_MULTISHOT);
        Assert.Equal(1u, IoUringConstants.IORING_CQE_F_BUFFER);
        Assert.Equal(2u, IoUringConstants.IORING_CQE_F_MORE);
        Assert.Equal(16, IoUringConstants.IORING_CQE_BUFFER_SHIFT);
        Assert.Equal(8u, IoUringConstants.IORING_SETUP_CQSIZE);
        Assert.Equal(128u, IoUringConstants.IORING_SETUP_SUBMIT_ALL);
        Assert.Equal(256u, IoUringConstants.IORING_SETUP_COOP_TASKRUN);
        Assert.Equal(4096u, IoUringConstants.IORING_SETUP_SINGLE_ISSUER);
        Assert.Equal(8192u, IoUringConstants.IORING_SETUP_DEFER_TASKRUN);
        Assert.Equal(1u, IoUringConstants.IORING_FEAT_SINGLE_MMAP);
        Assert.Equal(2u, IoUringConstants.IORING_FEAT_NODROP);
        Assert.Equal(1u, IoUringConstants.IORING_ENTER_GETEVENTS);
        Assert.Equal(8u, IoUringConstants.IORING_ENTER_EXT_ARG);
        Assert.Equal(62, (int)Errno.ETIME);
        Assert.Equal(0, IoUringConstants.IORING_OFF_SQ_RING);
        Assert.Equal(0x8000000, IoUringConstants.IORING_OFF_CQ_RING);
        Assert.Equal(0x10000000, IoUringConstants.IORING_OFF_SQES);
        Assert.Equal(22u, IoUringConstants.IORING_REGISTER_PBUF_RING);
        Assert.Equal(23u, IoUringConstants.IORING_UNREGISTER_PBUF_RING);
        Assert.Equal(1u, IoUringConstants.IORING_ASYNC_CANCEL_ALL);
        Assert.Equal(125, (int)Errno.ECANCELED);
        Assert.Equal(105, (int)Errno.ENOBUFS);
        Assert.Equal(16, (int)Errno.EBUSY);
        Assert.Equal(38, (int)Errno.ENOSYS);
    }
}
