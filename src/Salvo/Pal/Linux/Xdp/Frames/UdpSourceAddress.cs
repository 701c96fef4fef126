using System.Buffers.Binary;

namespace Salvo.Pal;

/// <summary>
/// The source addresses the kernel drops whatever host it runs on: the ones no packet from the network can have, and
/// groups a reply would go to. The host's own addresses are <see cref="UdpReceivePolicy"/>'s check. Allocation-free.
/// </summary>
internal static class UdpSourceAddress
{
    private const uint LimitedBroadcast = 0xFFFF_FFFF;

    /// <summary>
    /// An IPv4 source (host order) as net/ipv4/route.c, ip_route_input_slow, sees it: multicast (224.0.0.0/4) and the
    /// limited broadcast are martian, as are 0.0.0.0 (to a unicast destination) and loopback (127.0.0.0/8; the
    /// route_localnet sysctl, off by default, is the one exception and a socket bound to an interface address never
    /// needs it). The rest of 0.0.0.0/8 passes: ipv4_is_zeronet means 0.0.0.0 alone since Linux 5.3, which made the
    /// range assignable.
    /// </summary>
    public static UdpFrameStatus CheckIPv4(uint source) => source switch
    {
        0 => UdpFrameStatus.MartianSource,
        _ when (source >> 24) == 127 => UdpFrameStatus.MartianSource,
        _ when (source >> 28) == 0xE || source == LimitedBroadcast => UdpFrameStatus.MulticastSource,
        _ => UdpFrameStatus.Ok,
    };

    /// <summary>
    /// An IPv6 source as net/ipv6/ip6_input.c, ip6_rcv_core, sees it: multicast (ff00::/8, RFC 4291 section 2.7) and
    /// loopback on a non-loopback interface (RFC 4291 section 2.5.3) are dropped. The unspecified address, IPv4-mapped
    /// and IPv4-compatible addresses pass, as they do there (the lab test found Linux 6.18 delivering a mapped source).
    /// </summary>
    public static UdpFrameStatus CheckIPv6(ReadOnlySpan<byte> source)
    {
        if (source[0] == 0xFF)
        {
            return UdpFrameStatus.MulticastSource;
        }

        var high = BinaryPrimitives.ReadUInt64BigEndian(source);
        var low = BinaryPrimitives.ReadUInt64BigEndian(source[8..]);
        return high == 0 && low == 1 ? UdpFrameStatus.MartianSource : UdpFrameStatus.Ok;
    }
}
