using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Text;
using Salvo.Tunnel.Routing;

namespace Salvo.Perf.Tunnel.Linux;

/// <summary>
/// The rtnetlink messages of <c>ip route add PREFIX dev NAME</c> and <c>ip route show</c>, and the kernel's answers to
/// them, as bytes (include/uapi/linux/netlink.h, rtnetlink.h). Integers are in host order, as netlink wants them.
/// </summary>
internal static class RouteMessages
{
    /// <summary>struct nlmsghdr: length, type, flags, sequence, port id.</summary>
    public const int HeaderSize = 16;

    /// <summary>NLMSG_ERROR: an acknowledgement (error 0) or a refusal (-errno).</summary>
    public const ushort Error = 2;

    /// <summary>The largest request: header, struct rtmsg (12), RTA_DST with 16 address bytes (20), RTA_OIF (8), RTA_TABLE (8).</summary>
    public const int MaxRequestSize = HeaderSize + 12 + 20 + 8 + 8;

    /// <summary>NLMSG_DONE: the end of a dump.</summary>
    public const ushort Done = 3;

    /// <summary>RTM_NEWROUTE: a request to add a route, and each route of a dump.</summary>
    public const ushort NewRoute = 24;

    /// <summary>The size of a dump request: a header and a struct rtmsg.</summary>
    public const int DumpRequestSize = HeaderSize + 12;

    /// <summary>
    /// NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE: what 'ip route add' sends. Never NLM_F_REPLACE (0x100):
    /// a replace took over a route the host already had (the underlay's own subnet), and the route went with the
    /// tunnel's interface when it closed; with EXCL the kernel refuses a prefix its table holds with EEXIST.
    /// </summary>
    public const ushort AddFlags = 0x001 | 0x004 | 0x200 | 0x400;

    /// <summary>RTM_GETROUTE.</summary>
    private const ushort GetRoute = 26;

    /// <summary>NLM_F_REQUEST | NLM_F_DUMP (NLM_F_ROOT | NLM_F_MATCH): every route of every table.</summary>
    private const ushort DumpFlags = 0x001 | 0x100 | 0x200;

    /// <summary>NLM_F_CAPPED: the acknowledgement echoes the request's header only.</summary>
    private const ushort Capped = 0x100;

    /// <summary>NLM_F_ACK_TLVS: attributes (the kernel's message) follow the echoed request.</summary>
    private const ushort AckAttributes = 0x200;

    /// <summary>NLMSGERR_ATTR_MSG: the kernel's reason as a NUL-terminated string.</summary>
    private const ushort AttributeMessage = 1;

    /// <summary>RT_TABLE_MAIN: where routes go without a Table key.</summary>
    public const uint MainTable = 254;

    /// <summary>RTA_TABLE: a table number of 32 bits, for tables past the 8-bit rtm_table (ip(8) sends it for those).</summary>
    private const ushort AttributeTable = 15;

    /// <summary>RTPROT_BOOT: what ip(8) marks routes it adds with.</summary>
    private const byte ProtocolBoot = 3;

    /// <summary>RT_SCOPE_LINK for IPv4 (ip's choice for a route with no gateway); IPv6 routes are RT_SCOPE_UNIVERSE.</summary>
    private const byte ScopeLink = 253;

    private const byte Unicast = 1;
    private const ushort AttributeDestination = 1;
    private const ushort AttributeOutputInterface = 4;

    /// <summary>
    /// Writes one RTM_NEWROUTE (add, never replace) of <paramref name="prefix"/> through interface
    /// <paramref name="interfaceIndex"/> into routing table <paramref name="table"/>; returns its length.
    /// </summary>
    public static int WriteAdd(Span<byte> buffer, uint sequence, IPPrefix prefix, int interfaceIndex, uint table = MainTable)
    {
        var v4 = prefix.Address.AddressFamily == AddressFamily.InterNetwork;
        var addressLength = v4 ? 4 : 16;
        var wideTable = table > byte.MaxValue;
        var length = HeaderSize + 12 + 4 + addressLength + 8 + (wideTable ? 8 : 0);
        var message = buffer[..length];
        message.Clear();
        Write(message, 0, (uint)length);
        Write(message, 4, NewRoute);
        Write(message, 6, AddFlags);
        Write(message, 8, sequence);
        message[16] = v4 ? (byte)2 : (byte)10;
        message[17] = (byte)prefix.Length;
        message[20] = wideTable ? (byte)0 : (byte)table;
        message[21] = ProtocolBoot;
        message[22] = v4 ? ScopeLink : (byte)0;
        message[23] = Unicast;
        Write(message, 28, (ushort)(4 + addressLength));
        Write(message, 30, AttributeDestination);
        prefix.Address.TryWriteBytes(message.Slice(32, addressLength), out _);
        var oif = 32 + addressLength;
        Write(message, oif, (ushort)8);
        Write(message, oif + 2, AttributeOutputInterface);
        Write(message, oif + 4, interfaceIndex);
        if (wideTable)
        {
            Write(message, oif + 8, (ushort)8);
            Write(message, oif + 10, AttributeTable);
            Write(message, oif + 12, table);
        }

        return length;
    }

    /// <summary>Writes an RTM_GETROUTE dump of the routes of both families in every table; returns its length.</summary>
    public static int WriteDump(Span<byte> buffer, uint sequence)
    {
        var message = buffer[..DumpRequestSize];
        message.Clear();
        Write(message, 0, (uint)DumpRequestSize);
        Write(message, 4, GetRoute);
        Write(message, 6, DumpFlags);
        Write(message, 8, sequence);
        return DumpRequestSize;
    }

    /// <summary>
    /// Reads the message at <paramref name="offset"/> and moves past it. False at the end of the buffer or at a
    /// message too short to be one. An NLMSG_ERROR gives the request's sequence, 0 or -errno, and the kernel's text.
    /// </summary>
    public static bool TryReadAnswer(ReadOnlySpan<byte> buffer, ref int offset, out ushort type, out uint sequence, out int error, out string? reason)
    {
        type = 0;
        sequence = 0;
        error = 0;
        reason = null;
        if (buffer.Length - offset < HeaderSize)
        {
            return false;
        }

        var message = buffer[offset..];
        var length = (int)Read<uint>(message, 0);
        if (length < HeaderSize || length > message.Length)
        {
            return false;
        }

        offset += Align(length);
        message = message[..length];
        type = Read<ushort>(message, 4);
        var flags = Read<ushort>(message, 6);
        sequence = Read<uint>(message, 8);
        if (type != Error || length < HeaderSize + 4 + HeaderSize)
        {
            return true;
        }

        error = Read<int>(message, HeaderSize);
        var echoed = (flags & Capped) != 0 ? HeaderSize : Align((int)Read<uint>(message, HeaderSize + 4));
        var attributes = HeaderSize + 4 + echoed;
        if ((flags & AckAttributes) != 0 && attributes <= length)
        {
            reason = ReadReason(message[attributes..]);
        }

        return true;
    }

    /// <summary>The whole message at <paramref name="offset"/>, header included, and moves past it; false at the end or at one too short to be a message.</summary>
    public static bool TryReadMessage(ReadOnlySpan<byte> buffer, ref int offset, out ReadOnlySpan<byte> message)
    {
        message = default;
        if (buffer.Length - offset < HeaderSize)
        {
            return false;
        }

        var length = (int)Read<uint>(buffer, offset);
        if (length < HeaderSize || length > buffer.Length - offset)
        {
            return false;
        }

        message = buffer.Slice(offset, length);
        offset += Align(length);
        return true;
    }

    private static string? ReadReason(ReadOnlySpan<byte> attributes)
    {
        while (attributes.Length >= 4)
        {
            var length = Read<ushort>(attributes, 0);
            if (length < 4 || length > attributes.Length)
            {
                return null;
            }

            if (Read<ushort>(attributes, 2) == AttributeMessage)
            {
                var text = attributes[4..length];
                var end = text.IndexOf((byte)0);
                return Encoding.UTF8.GetString(end < 0 ? text : text[..end]);
            }

            attributes = attributes[Math.Min(Align(length), attributes.Length)..];
        }

        return null;
    }

    internal static int Align(int length) => (length + 3) & ~3;

    private static void Write<T>(Span<byte> buffer, int offset, T value)
        where T : unmanaged => MemoryMarshal.Write(buffer[offset..], in value);

    internal static T Read<T>(ReadOnlySpan<byte> buffer, int offset)
        where T : unmanaged => MemoryMarshal.Read<T>(buffer[offset..]);
}
