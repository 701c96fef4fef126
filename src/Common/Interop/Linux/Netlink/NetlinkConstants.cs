namespace Salvo.Interop.Linux;

/// <summary>
/// rtnetlink's message types, flags and attribute numbers from include/uapi/linux/netlink.h, rtnetlink.h,
/// if_link.h, if_addr.h and neighbour.h (kernel 6.18). XdpAbiTests asserts them. The one copy of rtnetlink's numbers:
/// the library's AF_XDP lookups and the tunnel's route installer both read them here.
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
    public const ushort NLM_F_ACK = 0x4;
    public const ushort NLM_F_DUMP = 0x300;

    // NLM_F_* of a NEW request: fail with EEXIST rather than replace (EXCL), make the object when missing (CREATE).
    public const ushort NLM_F_EXCL = 0x200;
    public const ushort NLM_F_CREATE = 0x400;

    // NLM_F_* of an NLMSG_ERROR: only the request's header is echoed (CAPPED); attributes follow it (ACK_TLVS).
    public const ushort NLM_F_CAPPED = 0x100;
    public const ushort NLM_F_ACK_TLVS = 0x200;

    /// <summary>NLMSGERR_ATTR_MSG: the kernel's reason for a refusal, a NUL-terminated string.</summary>
    public const ushort NLMSGERR_ATTR_MSG = 1;

    // SOL_NETLINK options: short acknowledgements, and errors that carry the kernel's text.
    public const int SOL_NETLINK = 270;
    public const int NETLINK_CAP_ACK = 10;
    public const int NETLINK_EXT_ACK = 11;

    // SOL_SOCKET / SO_RCVBUFFORCE: a receive buffer past net.core.rmem_max, allowed with CAP_NET_ADMIN.
    public const int SOL_SOCKET = 1;
    public const int SO_RCVBUFFORCE = 33;

    /// <summary>MSG_DONTWAIT: a read that finds nothing queued returns EAGAIN at once.</summary>
    public const int MSG_DONTWAIT = 0x40;

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
    public const ushort RTA_PRIORITY = 6;
    public const ushort RTA_PREFSRC = 7;
    public const ushort RTA_MULTIPATH = 9;
    public const ushort RTA_TABLE = 15;

    // struct rtmsg fields: the main table, ip(8)'s protocol mark, the scopes, unicast.
    public const uint RT_TABLE_MAIN = 254;
    public const byte RTPROT_BOOT = 3;
    public const byte RT_SCOPE_UNIVERSE = 0;
    public const byte RT_SCOPE_LINK = 253;
    public const byte RTN_UNICAST = 1;

    /// <summary>IFF_UP (include/uapi/linux/if.h): ifinfomsg's flag and change mask of 'ip link set ... up'.</summary>
    public const uint IFF_UP = 0x1;

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
