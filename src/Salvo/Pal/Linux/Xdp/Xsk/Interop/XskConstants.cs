namespace Salvo.Interop.Linux;

/// <summary>
/// AF_XDP socket options, bind flags and ring mapping offsets from include/uapi/linux/if_xdp.h and the family and
/// level from include/linux/socket.h (kernel 6.18). LinuxAbiTests asserts them.
/// </summary>
internal static class XskConstants
{
    public const int AF_XDP = 44;
    public const int SOL_XDP = 283;

    // Socket options at SOL_XDP.
    public const int XDP_MMAP_OFFSETS = 1;
    public const int XDP_RX_RING = 2;
    public const int XDP_TX_RING = 3;
    public const int XDP_UMEM_REG = 4;
    public const int XDP_UMEM_FILL_RING = 5;
    public const int XDP_UMEM_COMPLETION_RING = 6;
    public const int XDP_STATISTICS = 7;
    public const int XDP_OPTIONS = 8;

    // sockaddr_xdp.sxdp_flags
    public const ushort XDP_SHARED_UMEM = 1 << 0;
    public const ushort XDP_COPY = 1 << 1;
    public const ushort XDP_ZEROCOPY = 1 << 2;
    public const ushort XDP_USE_NEED_WAKEUP = 1 << 3;

    /// <summary>xdp_ring_offset.flags: the kernel wants a wake-up (sendto or poll) to go on.</summary>
    public const uint XDP_RING_NEED_WAKEUP = 1 << 0;

    /// <summary>xdp_options.flags: the socket runs in zero-copy mode.</summary>
    public const uint XDP_OPTIONS_ZEROCOPY = 1 << 0;

    // mmap(2) page offsets of the four rings.
    public const long XDP_PGOFF_RX_RING = 0;
    public const long XDP_PGOFF_TX_RING = 0x80000000;
    public const long XDP_UMEM_PGOFF_FILL_RING = 0x100000000;
    public const long XDP_UMEM_PGOFF_COMPLETION_RING = 0x180000000;

    // Busy polling on the socket (include/uapi/asm-generic/socket.h); SO_BUSY_POLL is in Constants.
    public const int SO_PREFER_BUSY_POLL = 69;
    public const int SO_BUSY_POLL_BUDGET = 70;
}
