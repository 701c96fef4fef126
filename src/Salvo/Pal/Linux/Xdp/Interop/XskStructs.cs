using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Layouts of include/uapi/linux/if_xdp.h (kernel 6.18); sizes and offsets are asserted in LinuxAbiTests.

/// <summary><c>struct sockaddr_xdp</c>: 16 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct SockaddrXdp
{
    public ushort Family;
    public ushort Flags;
    public uint InterfaceIndex;
    public uint QueueId;
    public uint SharedUmemFd;
}

/// <summary><c>struct xdp_ring_offset</c>: 32 bytes, where each word of a ring's mapping lies.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpRingOffset
{
    public ulong Producer;
    public ulong Consumer;
    public ulong Descriptors;
    public ulong Flags;
}

/// <summary><c>struct xdp_mmap_offsets</c>: 128 bytes, the four rings' layouts.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpMmapOffsets
{
    public XdpRingOffset Rx;
    public XdpRingOffset Tx;
    public XdpRingOffset Fill;
    public XdpRingOffset Completion;
}

/// <summary>
/// <c>struct xdp_umem_reg</c>: 32 bytes. The kernel's own (6.8 and later) ends with <c>tx_metadata_len</c>, which the
/// Debian 12 header lacks; it lies in what is padding there, so the 32 bytes read the same to both.
/// </summary>
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

/// <summary><c>struct xdp_desc</c>: 16 bytes, one frame on the RX or TX ring.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpDesc
{
    public ulong Address;
    public uint Length;
    public uint Options;
}

/// <summary><c>struct xdp_statistics</c>: 48 bytes, the socket's drop counters.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpStatistics
{
    public ulong RxDropped;
    public ulong RxInvalidDescriptors;
    public ulong TxInvalidDescriptors;
    public ulong RxRingFull;
    public ulong RxFillRingEmpty;
    public ulong TxRingEmpty;
}

/// <summary><c>struct xdp_options</c>: 4 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct XdpOptions
{
    public uint Flags;
}
