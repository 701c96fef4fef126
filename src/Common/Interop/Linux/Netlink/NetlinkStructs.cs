using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Layouts of include/uapi/linux/netlink.h, rtnetlink.h, if_addr.h and neighbour.h; sizes are asserted in LinuxAbiTests.
// Messages and attributes are aligned to 4 bytes (NLMSG_ALIGN, RTA_ALIGN).

/// <summary><c>struct nlmsghdr</c>: 16 bytes before every netlink message.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NlMsgHdr
{
    public uint Length;
    public ushort Type;
    public ushort Flags;
    public uint Sequence;
    public uint PortId;
}

/// <summary><c>struct ifinfomsg</c>: 16 bytes, the body of RTM_*LINK.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IfInfoMsg
{
    public byte Family;
    public byte Pad;
    public ushort Type;
    public int Index;
    public uint Flags;
    public uint Change;
}

/// <summary><c>struct ifaddrmsg</c>: 8 bytes, the body of RTM_*ADDR.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IfAddrMsg
{
    public byte Family;
    public byte PrefixLength;
    public byte Flags;
    public byte Scope;
    public int Index;
}

/// <summary><c>struct rtmsg</c>: 12 bytes, the body of RTM_*ROUTE.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct RtMsg
{
    public byte Family;
    public byte DestinationLength;
    public byte SourceLength;
    public byte Tos;
    public byte Table;
    public byte Protocol;
    public byte Scope;
    public byte Type;
    public uint Flags;
}

/// <summary><c>struct ndmsg</c>: 12 bytes, the body of RTM_*NEIGH.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NdMsg
{
    public byte Family;
    public byte Pad1;
    public ushort Pad2;
    public int IfIndex;
    public ushort State;
    public byte Flags;
    public byte Type;
}

/// <summary><c>struct rtattr</c> (and <c>struct nlattr</c>): 4 bytes before each attribute's value.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct RtAttr
{
    public ushort Length;
    public ushort Type;
}
