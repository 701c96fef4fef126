using System.Runtime.InteropServices;
using System.Text;
using Salvo.Perf.Tunnel.Linux;
using Salvo.Tunnel.Routing;

namespace Salvo.Perf.Tests.Tunnel;

/// <summary>The rtnetlink bytes of 'ip route replace PREFIX dev NAME' and the kernel's answers, read off include/uapi/linux.</summary>
public sealed class RouteMessagesTests
{
    [Fact]
    public void WriteReplace_IPv4_IsNewRouteWithDestinationAndInterface()
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        var length = RouteMessages.WriteReplace(buffer, sequence: 7, IPPrefix.Parse("198.18.1.0/24"), interfaceIndex: 5);

        Assert.Equal(44, length);
        Assert.Equal(44u, Read<uint>(buffer, 0));
        Assert.Equal(24, Read<ushort>(buffer, 4));       // RTM_NEWROUTE
        Assert.Equal(0x505, Read<ushort>(buffer, 6));    // REQUEST | ACK | REPLACE | CREATE
        Assert.Equal(7u, Read<uint>(buffer, 8));
        Assert.Equal([2, 24, 0, 0, 254, 3, 253, 1], buffer[16..24]); // AF_INET, /24, main table, boot, link scope, unicast
        Assert.Equal([8, 0, 1, 0, 198, 18, 1, 0], buffer[28..36]);   // RTA_DST
        Assert.Equal(8, Read<ushort>(buffer, 36));
        Assert.Equal(4, Read<ushort>(buffer, 38));       // RTA_OIF
        Assert.Equal(5, Read<int>(buffer, 40));
    }

    [Fact]
    public void WriteReplace_IPv6_IsUniverseScopeWithSixteenAddressBytes()
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        var length = RouteMessages.WriteReplace(buffer, 1, IPPrefix.Parse("fd00:5a1::2/128"), 3);

        Assert.Equal(56, length);
        Assert.Equal([10, 128, 0, 0, 254, 3, 0, 1], buffer[16..24]);
        Assert.Equal(20, Read<ushort>(buffer, 28));
        Assert.Equal(System.Net.IPAddress.Parse("fd00:5a1::2").GetAddressBytes(), buffer[32..48]);
        Assert.Equal(3, Read<int>(buffer, 52));
    }

    [Fact]
    public void WriteReplace_TableNumberInAByte_GoesInTheHeader()
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        var length = RouteMessages.WriteReplace(buffer, 1, IPPrefix.Parse("0.0.0.0/0"), 3, table: 200);

        Assert.Equal(44, length);
        Assert.Equal(200, buffer[20]);
    }

    [Fact]
    public void WriteReplace_TablePastAByte_IsAnRtaTableAttribute()
    {
        var buffer = new byte[RouteMessages.MaxRequestSize];

        var length = RouteMessages.WriteReplace(buffer, 1, IPPrefix.Parse("::/0"), 3, table: 51820);

        Assert.Equal(RouteMessages.MaxRequestSize, length);
        Assert.Equal((uint)length, Read<uint>(buffer, 0));
        Assert.Equal(0, buffer[20]);                     // RT_TABLE_UNSPEC: the attribute names the table
        Assert.Equal(8, Read<ushort>(buffer, 56));
        Assert.Equal(15, Read<ushort>(buffer, 58));      // RTA_TABLE
        Assert.Equal(51820u, Read<uint>(buffer, 60));
    }

    [Fact]
    public void TryReadAnswer_AckThenRefusalWithReason_GivesSequenceErrorAndText()
    {
        var answers = new List<byte>();
        answers.AddRange(Ack(sequence: 1, error: 0, reason: null));
        answers.AddRange(Ack(sequence: 2, error: -19, reason: "Nexthop device is not up"));
        var buffer = answers.ToArray();
        var offset = 0;

        Assert.True(RouteMessages.TryReadAnswer(buffer, ref offset, out var type, out var sequence, out var error, out var reason));
        Assert.Equal((RouteMessages.Error, 1u, 0, (string?)null), (type, sequence, error, reason));
        Assert.True(RouteMessages.TryReadAnswer(buffer, ref offset, out type, out sequence, out error, out reason));
        Assert.Equal((RouteMessages.Error, 2u, -19, "Nexthop device is not up"), (type, sequence, error, reason));
        Assert.False(RouteMessages.TryReadAnswer(buffer, ref offset, out _, out _, out _, out _));
    }

    /// <summary>An NLMSG_ERROR as the kernel writes it with NETLINK_CAP_ACK and NETLINK_EXT_ACK on.</summary>
    private static byte[] Ack(uint sequence, int error, string? reason)
    {
        var text = reason is null ? [] : Encoding.UTF8.GetBytes(reason + "\0");
        var attribute = reason is null ? 0 : (4 + text.Length + 3) & ~3;
        var message = new byte[16 + 4 + 16 + attribute];
        Write(message, 0, (uint)message.Length);
        Write(message, 4, RouteMessages.Error);
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

    private static T Read<T>(byte[] buffer, int offset)
        where T : unmanaged => MemoryMarshal.Read<T>(buffer.AsSpan(offset));

    private static void Write<T>(byte[] buffer, int offset, T value)
        where T : unmanaged => MemoryMarshal.Write(buffer.AsSpan(offset), in value);
}
