using System.Runtime.InteropServices;
using System.Text;
using Salvo.Interop.Linux;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Pal;

/// <summary>
/// The rtnetlink bytes of 'ip route add PREFIX dev NAME' and 'ip route show', and the kernel's answers, read off
/// include/uapi/linux: the one codec in src/Common that the tunnel's routes and AF_XDP's lookups share.
/// </summary>
public sealed class RouteMessagesTests
{
    [Fact]
    public void WriteAdd_IPv4_IsNewRouteWithDestinationAndInterface()
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        var length = WriteAdd(buffer, 7, "198.18.1.0/24", interfaceIndex: 5);

        Assert.Equal(44, length);
        Assert.Equal(44u, Read<uint>(buffer, 0));
        Assert.Equal(24, Read<ushort>(buffer, 4));       // RTM_NEWROUTE
        Assert.Equal(0x605, Read<ushort>(buffer, 6));    // REQUEST | ACK | EXCL | CREATE, as 'ip route add'
        Assert.Equal(7u, Read<uint>(buffer, 8));
        Assert.Equal([2, 24, 0, 0, 254, 3, 253, 1], buffer[16..24]); // AF_INET, /24, main table, boot, link scope, unicast
        Assert.Equal([8, 0, 1, 0, 198, 18, 1, 0], buffer[28..36]);   // RTA_DST
        Assert.Equal(8, Read<ushort>(buffer, 36));
        Assert.Equal(4, Read<ushort>(buffer, 38));       // RTA_OIF
        Assert.Equal(5, Read<int>(buffer, 40));
    }

    [Fact]
    public void WriteAdd_IPv6_IsUniverseScopeWithSixteenAddressBytes()
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        var length = WriteAdd(buffer, 1, "fd00:5a1::2/128", 3);

        Assert.Equal(56, length);
        Assert.Equal([10, 128, 0, 0, 254, 3, 0, 1], buffer[16..24]);
        Assert.Equal(20, Read<ushort>(buffer, 28));
        Assert.Equal(System.Net.IPAddress.Parse("fd00:5a1::2").GetAddressBytes(), buffer[32..48]);
        Assert.Equal(3, Read<int>(buffer, 52));
    }

    [Fact]
    public void WriteAdd_TableNumberInAByte_GoesInTheHeader()
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        var length = WriteAdd(buffer, 1, "0.0.0.0/0", 3, table: 200);

        Assert.Equal(44, length);
        Assert.Equal(200, buffer[20]);
    }

    [Fact]
    public void WriteAdd_TablePastAByte_IsAnRtaTableAttribute()
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        var length = WriteAdd(buffer, 1, "::/0", 3, table: 51820);

        Assert.Equal(RouteMessages.MaxRequestSize, length);
        Assert.Equal((uint)length, Read<uint>(buffer, 0));
        Assert.Equal(0, buffer[20]);                     // RT_TABLE_UNSPEC: the attribute names the table
        Assert.Equal(8, Read<ushort>(buffer, 56));
        Assert.Equal(15, Read<ushort>(buffer, 58));      // RTA_TABLE
        Assert.Equal(51820u, Read<uint>(buffer, 60));
    }

    /// <summary>A replace (NLM_F_REPLACE, 0x100) took over the host's own routes; every add must be refused by the kernel instead.</summary>
    [Theory]
    [InlineData("198.18.0.0/24")]
    [InlineData("fd00:5a1::/64")]
    [InlineData("0.0.0.0/0")]
    public void WriteAdd_NeverReplaces_CreatesExclusively(string prefix)
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        WriteAdd(buffer, 1, prefix, 3, table: 51820);

        var flags = Read<ushort>(buffer, 6);
        Assert.Equal(0, flags & 0x100);                  // NLM_F_REPLACE
        Assert.Equal(0x200 | 0x400, flags & 0x600);      // NLM_F_EXCL | NLM_F_CREATE
    }

    [Fact]
    public void WriteDump_IsGetRouteOfEveryTableAndFamily()
    {
        var buffer = new byte[RouteMessages.DumpRequestSize];

        var length = RouteMessages.WriteDump(buffer, sequence: 9);

        Assert.Equal(28, length);
        Assert.Equal(28u, Read<uint>(buffer, 0));
        Assert.Equal(26, Read<ushort>(buffer, 4));       // RTM_GETROUTE
        Assert.Equal(0x301, Read<ushort>(buffer, 6));    // REQUEST | DUMP
        Assert.Equal(9u, Read<uint>(buffer, 8));
        Assert.Equal(0, buffer[16]);                     // AF_UNSPEC: both families
    }

    [Fact]
    public void KernelRoute_DumpedRoute_ReadsPrefixTableDeviceAndDescribesItLikeIp()
    {
        var message = DumpedRoute(family: 2, prefixLength: 24, [198, 18, 0, 0], table: 254, protocol: 2, interfaceIndex: 7, metric: 100);

        Assert.True(KernelRoute.TryRead(message, out var route));

        Assert.Equal(("198.18.0.0/24", IPPrefix.Parse("198.18.0.0/24")), (route.Prefix, new IPPrefix(route.Destination, route.PrefixLength)));
        Assert.Equal((254u, 7, 100u), (route.Table, route.InterfaceIndex, route.Metric));
        Assert.Equal("198.18.0.0/24 dev eth7 table main proto kernel metric 100", route.Describe(index => index == 7 ? "eth7" : null));
    }

    [Fact]
    public void KernelRoute_WideTableAndNoDevice_ReadsTheAttributeAndTheType()
    {
        var message = DumpedRoute(family: 10, prefixLength: 0, [], table: 51820, protocol: 4, interfaceIndex: 0, metric: 0, type: 7);

        Assert.True(KernelRoute.TryRead(message, out var route));

        Assert.Equal("::/0", route.Prefix);
        Assert.Equal("unreachable ::/0 table 51820 proto static", route.Describe(_ => null));
    }

    [Theory]
    [InlineData(1, 24)]  // AF_UNIX: no route of the tunnel's
    [InlineData(2, 33)]  // a prefix longer than the address
    public void KernelRoute_NotAnAddressRoute_IsNotRead(byte family, byte prefixLength)
    {
        var message = DumpedRoute(family, prefixLength, [198, 18, 0, 0], table: 254, protocol: 2, interfaceIndex: 7, metric: 0);

        Assert.False(KernelRoute.TryRead(message, out _));
    }

    [Fact]
    public void KernelRoute_AttributeLongerThanTheMessage_IsNotRead()
    {
        var message = DumpedRoute(family: 2, prefixLength: 24, [198, 18, 0, 0], table: 254, protocol: 2, interfaceIndex: 7, metric: 0);
        Write(message, 28, (ushort)200);

        Assert.False(KernelRoute.TryRead(message, out _));
    }

    [Fact]
    public void TryReadAnswer_AckThenRefusalWithReason_GivesSequenceErrorAndText()
    {
        var answers = new List<byte>();
        answers.AddRange(Ack(sequence: 1, error: 0, reason: null));
        answers.AddRange(Ack(sequence: 2, error: -19, reason: "Nexthop device is not up"));
        var buffer = answers.ToArray();
        var offset = 0;

        Assert.True(NetlinkMessages.TryReadAnswer(buffer, ref offset, out var type, out var sequence, out var error, out var reason));
        Assert.Equal((NetlinkConstants.NLMSG_ERROR, 1u, 0, (string?)null), (type, sequence, error, reason));
        Assert.True(NetlinkMessages.TryReadAnswer(buffer, ref offset, out type, out sequence, out error, out reason));
        Assert.Equal((NetlinkConstants.NLMSG_ERROR, 2u, -19, "Nexthop device is not up"), (type, sequence, error, reason));
        Assert.False(NetlinkMessages.TryReadAnswer(buffer, ref offset, out _, out _, out _, out _));
    }

    /// <summary>An NLMSG_ERROR as the kernel writes it with NETLINK_CAP_ACK and NETLINK_EXT_ACK on.</summary>
    private static byte[] Ack(uint sequence, int error, string? reason)
    {
        var text = reason is null ? [] : Encoding.UTF8.GetBytes(reason + "\0");
        var attribute = reason is null ? 0 : (4 + text.Length + 3) & ~3;
        var message = new byte[16 + 4 + 16 + attribute];
        Write(message, 0, (uint)message.Length);
        Write(message, 4, NetlinkConstants.NLMSG_ERROR);
        Write(message, 6, (ushort)(0x100 | (reason is null ? 0 : 0x200)));
        Write(message, 8, sequence);
        Write(message, 16, error);
        Write(message, 20, 44u);
        Write(message, 28, sequence);
        if (reason is not null)
        {
            Write(message, 36, (ushort)(4 + text.Length));
            Write(message, 38, (ushort)1);
            text.CopyTo(message, 40);
        }

        return message;
    }

    /// <summary>An RTM_NEWROUTE of a dump: struct rtmsg, then RTA_TABLE, RTA_DST when there is one, RTA_OIF and RTA_PRIORITY when set.</summary>
    private static byte[] DumpedRoute(byte family, byte prefixLength, byte[] destination, uint table, byte protocol, int interfaceIndex, uint metric, byte type = 1)
    {
        var message = new List<byte>(new byte[28]);
        void Attribute(ushort kind, byte[] value)
        {
            message.AddRange(BitConverter.GetBytes((ushort)(4 + value.Length)));
            message.AddRange(BitConverter.GetBytes(kind));
            message.AddRange(value);
            while (message.Count % 4 != 0)
            {
                message.Add(0);
            }
        }

        Attribute(15, BitConverter.GetBytes(table));
        if (destination.Length > 0)
        {
            Attribute(1, destination);
        }

        if (interfaceIndex > 0)
        {
            Attribute(4, BitConverter.GetBytes(interfaceIndex));
        }

        if (metric > 0)
        {
            Attribute(6, BitConverter.GetBytes(metric));
        }

        var bytes = message.ToArray();
        Write(bytes, 0, (uint)bytes.Length);
        Write(bytes, 4, (ushort)24);
        bytes[16] = family;
        bytes[17] = prefixLength;
        bytes[20] = table > 255 ? (byte)252 : (byte)table;
        bytes[21] = protocol;
        bytes[23] = type;
        return bytes;
    }

    private static int WriteAdd(byte[] buffer, uint sequence, string prefix, int interfaceIndex, uint table = NetlinkConstants.RT_TABLE_MAIN)
    {
        var parsed = IPPrefix.Parse(prefix);
        return RouteMessages.WriteAdd(buffer, sequence, parsed.Address, parsed.Length, interfaceIndex, table);
    }

    private static T Read<T>(byte[] buffer, int offset)
        where T : unmanaged => MemoryMarshal.Read<T>(buffer.AsSpan(offset));

    private static void Write<T>(byte[] buffer, int offset, T value)
        where T : unmanaged => MemoryMarshal.Write(buffer.AsSpan(offset), in value);
}
