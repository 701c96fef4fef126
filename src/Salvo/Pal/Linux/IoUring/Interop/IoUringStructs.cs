using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Layouts of include/uapi/linux/io_uring.h; sizes and offsets are asserted in LinuxAbiTests.

/// <summary><c>struct io_sqring_offsets</c>: 40 bytes; where each field of the submission ring sits in its mapping.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoSqRingOffsets
{
    public uint Head;
    public uint Tail;
    public uint RingMask;
    public uint RingEntries;
    public uint Flags;
    public uint Dropped;
    public uint Array;
    public uint Reserved1;
    public ulong UserAddress;
}

/// <summary><c>struct io_cqring_offsets</c>: 40 bytes; where each field of the completion ring sits in its mapping.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoCqRingOffsets
{
    public uint Head;
    public uint Tail;
    public uint RingMask;
    public uint RingEntries;
    public uint Overflow;
    public uint Cqes;
    public uint Flags;
    public uint Reserved1;
    public ulong UserAddress;
}

/// <summary><c>struct io_uring_params</c>: 120 bytes, in and out of io_uring_setup.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoUringParams
{
    public uint SqEntries;
    public uint CqEntries;
    public uint Flags;
    public uint SqThreadCpu;
    public uint SqThreadIdle;
    public uint Features;
    public uint WqFd;
    public uint Reserved0;
    public uint Reserved1;
    public uint Reserved2;
    public IoSqRingOffsets SqOffsets;
    public IoCqRingOffsets CqOffsets;
}

/// <summary>
/// <c>struct io_uring_sqe</c>: 64 bytes. Only the members this backend fills are named; the unions are laid out by
/// offset (<see cref="OpFlags"/> is <c>msg_flags</c> or <c>cancel_flags</c>, <see cref="BufferGroup"/> is <c>buf_group</c>).
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 64)]
internal struct IoUringSqe
{
    [FieldOffset(0)] public byte Opcode;
    [FieldOffset(1)] public byte Flags;
    [FieldOffset(2)] public ushort IoPriority;
    [FieldOffset(4)] public int Fd;
    [FieldOffset(8)] public ulong Offset;
    [FieldOffset(16)] public ulong Address;
    [FieldOffset(24)] public uint Length;
    [FieldOffset(28)] public uint OpFlags;
    [FieldOffset(32)] public ulong UserData;
    [FieldOffset(40)] public ushort BufferGroup;
    [FieldOffset(42)] public ushort Personality;
    [FieldOffset(44)] public int FileIndex;
    [FieldOffset(48)] public ulong Address3;
    [FieldOffset(56)] public ulong Pad2;
}

/// <summary><c>struct io_uring_cqe</c>: 16 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoUringCqe
{
    public ulong UserData;
    public int Result;
    public uint Flags;
}

/// <summary><c>struct io_uring_buf_reg</c>: 40 bytes, the argument of IORING_REGISTER_PBUF_RING.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoUringBufReg
{
    public ulong RingAddress;
    public uint RingEntries;
    public ushort GroupId;
    public ushort Flags;
    public ulong Reserved0;
    public ulong Reserved1;
    public ulong Reserved2;
}

/// <summary>
/// <c>struct io_uring_buf</c>: 16 bytes, one entry of a provided-buffer ring. The ring's tail is the <c>resv</c> field of
/// entry 0 (offset 14), where <c>struct io_uring_buf_ring</c> overlays it.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoUringBuf
{
    public ulong Address;
    public uint Length;
    public ushort BufferId;
    public ushort Reserved;
}

/// <summary>
/// <c>struct io_uring_recvmsg_out</c>: 16 bytes at the start of each buffer a multishot recvmsg fills, followed by the
/// name (as long as the msghdr's <c>msg_namelen</c>), the control data (<c>msg_controllen</c>) and the payload.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoUringRecvMsgOut
{
    public uint NameLength;
    public uint ControlLength;
    public uint PayloadLength;
    public int Flags;
}

/// <summary><c>struct io_uring_getevents_arg</c>: 24 bytes, passed to io_uring_enter with IORING_ENTER_EXT_ARG (5.11) to bound a wait.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoUringGetEventsArg
{
    public ulong SignalMask;
    public uint SignalMaskSize;
    public uint MinWaitMicroseconds;
    public ulong Timeout;
}

/// <summary>
/// <c>struct io_uring_probe</c> without its flexible array: 16 bytes, followed by <see cref="OpsLength"/>
/// <see cref="IoUringProbeOp"/> entries once IORING_REGISTER_PROBE (5.6) has filled it.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoUringProbeHeader
{
    public byte LastOp;
    public byte OpsLength;
    public ushort Reserved;
    public uint Reserved2;
    public uint Reserved3;
    public uint Reserved4;
}

/// <summary><c>struct io_uring_probe_op</c>: 8 bytes, one opcode's entry in the probe.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IoUringProbeOp
{
    public byte Op;
    public byte Reserved;
    public ushort Flags;
    public uint Reserved2;
}

/// <summary><c>struct __kernel_timespec</c>: 16 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct KernelTimespec
{
    public long Seconds;
    public long Nanoseconds;
}
