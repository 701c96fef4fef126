namespace Salvo.Interop.Linux;

/// <summary>
/// io_uring's system call numbers, opcodes and flags, from include/uapi/linux/io_uring.h (kernel 6.18) and
/// arch/x86/entry/syscalls/syscall_64.tbl (the numbers are shared by every architecture since 5.1); mmap's from
/// include/uapi/asm-generic/mman-common.h. LinuxAbiTests asserts them.
/// </summary>
internal static class IoUringConstants
{
    public const long SYS_io_uring_setup = 425;
    public const long SYS_io_uring_enter = 426;
    public const long SYS_io_uring_register = 427;

    // enum io_uring_op
    public const byte IORING_OP_NOP = 0;
    public const byte IORING_OP_SENDMSG = 9;
    public const byte IORING_OP_RECVMSG = 10;
    public const byte IORING_OP_ASYNC_CANCEL = 14;

    // io_uring_sqe.flags
    public const byte IOSQE_IO_LINK = 1 << 2;
    public const byte IOSQE_BUFFER_SELECT = 1 << 5;
    public const byte IOSQE_CQE_SKIP_SUCCESS = 1 << 6;

    // io_uring_sqe.ioprio for send and receive
    public const ushort IORING_RECV_MULTISHOT = 1 << 1;

    // io_uring_cqe.flags
    public const uint IORING_CQE_F_BUFFER = 1 << 0;
    public const uint IORING_CQE_F_MORE = 1 << 1;
    public const int IORING_CQE_BUFFER_SHIFT = 16;

    // io_uring_setup flags
    public const uint IORING_SETUP_CQSIZE = 1 << 3;
    public const uint IORING_SETUP_SUBMIT_ALL = 1 << 7;
    public const uint IORING_SETUP_COOP_TASKRUN = 1 << 8;
    public const uint IORING_SETUP_SINGLE_ISSUER = 1 << 12;
    public const uint IORING_SETUP_DEFER_TASKRUN = 1 << 13;

    // io_uring_params.features
    public const uint IORING_FEAT_SINGLE_MMAP = 1 << 0;
    public const uint IORING_FEAT_NODROP = 1 << 1;

    // io_uring_enter flags
    public const uint IORING_ENTER_GETEVENTS = 1 << 0;
    public const uint IORING_ENTER_EXT_ARG = 1 << 3;

    // mmap offsets of the rings
    public const long IORING_OFF_SQ_RING = 0;
    public const long IORING_OFF_CQ_RING = 0x8000000;
    public const long IORING_OFF_SQES = 0x10000000;

    // io_uring_register opcodes
    public const uint IORING_REGISTER_PBUF_RING = 22;
    public const uint IORING_UNREGISTER_PBUF_RING = 23;
    public const uint IORING_REGISTER_PROBE = 8;

    // io_uring_probe_op.flags
    public const ushort IO_URING_OP_SUPPORTED = 1 << 0;

    // io_uring_sqe.cancel_flags
    public const uint IORING_ASYNC_CANCEL_ALL = 1 << 0;
}
