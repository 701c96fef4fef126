namespace Salvo.Interop.Linux;

/// <summary>
/// rtnetlink's message types, flags and attribute numbers from include/uapi/linux/netlink.h, rtnetlink.h,
/// if_link.h, if_addr.h and neighbour.h (kernel 6.18). LinuxAbiTests asserts them.
/// </summary>
internal static class NetlinkConstants
{
    public const int AF_NETLINK = 16;
    public const int SOCK_RAW = 3;
    public const int SOCK_CLOEXEC = 0x80000;
    public const int NETLINK_ROUTE = 0;

    // nlmsghdr.nlmsg_type
    public const ushort NLMSG_ERROR = 2;
    public const ushort NLMSG_DONE = 3;
    public const ushort RTM_NEWLINK = 16;
    public const ushort RTM_GETLINK = 18;
    public const ushort RTM_NEWADDR = 20;
    public const ushort RTM_GETADDR = 22;
    public const ushort RTM_NEWROUTE = 24;
    public const ushort RTM_GETROUTE = 26;
    public const ushort RTM_NEWNEIGH = 28;
    public const ushort RTM_GETNEIGH = 30;

    // nlmsghdr.nlmsg_flags
    public const ushort NLM_F_REQUEST = 0x1;
    public const ushort NLM_F_MULTI = 0x2;
    public const ushort NLM_F_DUMP = 0x300;

    // IFLA_*: struct ifinfomsg attributes; IFLA_XDP nests IFLA_XDP_*.
    public const ushort IFLA_ADDRESS = 1;
    public const ushort IFLA_IFNAME = 3;
    public const ushort IFLA_MTU = 4;
    public const ushort IFLA_NUM_RX_QUEUES = 32;
    public const ushort IFLA_XDP = 43;
    public const ushort IFLA_XDP_ATTACHED = 2;
    public const ushort IFLA_XDP_PROG_ID = 4;
    public const byte XDP_ATTACHED_NONE = 0;
    public const byte XDP_ATTACHED_DRV = 1;
    public const byte XDP_ATTACHED_SKB = 2;
    public const byte XDP_ATTACHED_HW = 3;
    public const byte XDP_ATTACHED_MULTI = 4;

    // IFA_*: struct ifaddrmsg attributes.
    public const ushort IFA_ADDRESS = 1;
    public const ushort IFA_LOCAL = 2;
    public const ushort IFA_BROADCAST = 4;

    // RTA_*: struct rtmsg attributes.
    public const ushort RTA_DST = 1;
    public const ushort RTA_OIF = 4;
    public const ushort RTA_GATEWAY = 5;
    public const ushort RTA_PREFSRC = 7;

    // NDA_*: struct ndmsg attributes, and the neighbour states (NUD_*) that carry a usable link-layer address.
    public const ushort NDA_DST = 1;
    public const ushort NDA_LLADDR = 2;
    public const ushort NUD_INCOMPLETE = 0x01;
    public const ushort NUD_REACHABLE = 0x02;
    public const ushort NUD_STALE = 0x04;
    public const ushort NUD_DELAY = 0x08;
    public const ushort NUD_PROBE = 0x10;
    public const ushort NUD_FAILED = 0x20;
    public const ushort NUD_NOARP = 0x40;
    public const ushort NUD_PERMANENT = 0x80;

    /// <summary>The attribute type's nesting and byte-order bits (NLA_F_NESTED, NLA_F_NET_BYTEORDER) masked off.</summary>
    public const ushort NLA_TYPE_MASK = 0x3FFF;
}
