using System.Net;
using System.Net.Sockets;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Interop.Linux;

/// <summary>
/// The rtnetlink requests of <c>ip route add PREFIX dev NAME</c>, <c>ip route show</c>, <c>ip address add</c> and
/// <c>ip link set NAME mtu MTU up</c> as bytes (include/uapi/linux/rtnetlink.h, if_addr.h, if_link.h). Integers are in
/// host order, as netlink wants them.
/// </summary>
internal static class RouteMessages
{
    /// <summary>The largest route request: header, struct rtmsg (12), RTA_DST with 16 address bytes (20), RTA_OIF (8), RTA_TABLE (8).</summary>
    public const int MaxRequestSize = NetlinkMessages.HeaderLength + 12 + 20 + 8 + 8;

    /// <summary>The size of a dump request: a header and a struct rtmsg.</summary>
    public const int DumpRequestSize = NetlinkMessages.HeaderLength + 12;

    /// <summary>
    /// NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE: what 'ip route add' sends. Never NLM_F_REPLACE (0x100):
    /// a replace took over a route the host already had (the underlay's own subnet), and the route went with the
    /// tunnel's interface when it closed; with EXCL the kernel refuses a prefix its table holds with EEXIST.
    /// </summary>
    public const ushort AddFlags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE;

    /// <summary>NLM_F_REQUEST | NLM_F_DUMP: every route of every table.</summary>
    private const ushort DumpFlags = NLM_F_REQUEST | NLM_F_DUMP;

    /// <summary>
    /// Writes one RTM_NEWROUTE (add, never replace) of <paramref name="destination"/>/<paramref name="prefixLength"/>
    /// through interface <paramref name="interfaceIndex"/> into routing table <paramref name="table"/>; returns its length.
    /// </summary>
    public static int WriteAdd(Span<byte> buffer, uint sequence, IPAddress destination, int prefixLength, int interfaceIndex, uint table = RT_TABLE_MAIN)
    {
        ArgumentNullException.ThrowIfNull(destination);
        var v4 = destination.AddressFamily == AddressFamily.InterNetwork;
        var addressLength = v4 ? 4 : 16;
        var wideTable = table > byte.MaxValue;
        var length = NetlinkMessages.HeaderLength + 12 + 4 + addressLength + 8 + (wideTable ? 8 : 0);
        var message = buffer[..length];
        message.Clear();
        NetlinkMessages.Write(message, 0, (uint)length);
        NetlinkMessages.Write(message, 4, RTM_NEWROUTE);
        NetlinkMessages.Write(message, 6, AddFlags);
        NetlinkMessages.Write(message, 8, sequence);
        message[16] = v4 ? (byte)2 : (byte)10;
        message[17] = (byte)prefixLength;

        // rtm_table holds 8 bits; a wider table goes in RTA_TABLE with rtm_table 0, as ip(8) sends it.
        message[20] = wideTable ? (byte)0 : (byte)table;
        message[21] = RTPROT_BOOT;

        // ip(8)'s scope for a route with no gateway: link for IPv4; IPv6 routes are universe.
        message[22] = v4 ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
        message[23] = RTN_UNICAST;
        var end = NetlinkAttributes.Write(message, 28, RTA_DST, destination.GetAddressBytes());
        end = NetlinkAttributes.Write(message, end, RTA_OIF, BitConverter.GetBytes(interfaceIndex));
        if (wideTable)
        {
            NetlinkAttributes.Write(message, end, RTA_TABLE, BitConverter.GetBytes(table));
        }

        return length;
    }

    /// <summary>Writes an RTM_GETROUTE dump of the routes of both families in every table; returns its length.</summary>
    public static int WriteDump(Span<byte> buffer, uint sequence)
    {
        var message = buffer[..DumpRequestSize];
        message.Clear();
        NetlinkMessages.Write(message, 0, (uint)DumpRequestSize);
        NetlinkMessages.Write(message, 4, RTM_GETROUTE);
        NetlinkMessages.Write(message, 6, DumpFlags);
        NetlinkMessages.Write(message, 8, sequence);
        return DumpRequestSize;
    }

    /// <summary>
    /// The attributes of 'ip address add ADDRESS/PREFIX dev NAME' (an RTM_NEWADDR after a struct ifaddrmsg):
    /// IFA_LOCAL and IFA_ADDRESS both the address, as ip(8) sends them for an address with no peer; returns their length.
    /// </summary>
    public static int WriteAddressAttributes(Span<byte> buffer, IPAddress address)
    {
        ArgumentNullException.ThrowIfNull(address);
        var bytes = address.GetAddressBytes();
        var end = NetlinkAttributes.Write(buffer, 0, IFA_LOCAL, bytes);
        return NetlinkAttributes.Write(buffer, end, IFA_ADDRESS, bytes);
    }
}
