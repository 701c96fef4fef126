using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Layouts of include/uapi/linux/if_xdp.h; sizes and offsets are asserted in LinuxAbiTests.

/// <summary><c>struct sockaddr_xdp</c>: 16 bytes, what an AF_XDP socket binds to (an interface's queue).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct SockaddrXdp
{
    public ushort Family;
    public ushort Flags;
    public uint IfIndex;
    public uint QueueId;
    public uint SharedUmemFd;
}

/// <summary><c>struct xdp_ring_offset</c>: 32 bytes; where a ring's producer, consumer, entries and flags sit in its mapping.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpRingOffset
{
    public ulong Producer;
    public ulong Consumer;
    public ulong Desc;
    public ulong Flags;
}

/// <summary><c>struct xdp_mmap_offsets</c>: 128 bytes, read with getsockopt(XDP_MMAP_OFFSETS).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpMmapOffsets
{
    public XdpRingOffset Rx;
    public XdpRingOffset Tx;
    public XdpRingOffset Fill;
    public XdpRingOffset Completion;
}

/// <summary><c>struct xdp_umem_reg</c>: 32 bytes, set with setsockopt(XDP_UMEM_REG).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpUmemReg
{
    public ulong Address;
    public ulong Length;
    public uint ChunkSize;
    public uint Headroom;
    public uint Flags;
    public uint TxMetadataLength;
}

/// <summary><c>struct xdp_desc</c>: 16 bytes, one entry of the RX and TX rings.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpDesc
{
    public ulong Address;
    public uint Length;
    public uint Options;
}

/// <summary><c>struct xdp_statistics</c>: 48 bytes, read with getsockopt(XDP_STATISTICS).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpStatistics
{
    public ulong RxDropped;
    public ulong RxInvalidDescs;
    public ulong TxInvalidDescs;
    public ulong RxRingFull;
    public ulong RxFillRingEmptyDescs;
    public ulong TxRingEmptyDescs;
}
