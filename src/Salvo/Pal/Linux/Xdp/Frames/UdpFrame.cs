using System.Buffers.Binary;
using System.Net.Sockets;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// Builds the Ethernet, IPv4 or IPv6, and UDP headers around a payload already in place in a frame, as an AF_XDP
/// socket sends it: no options, no extension headers, no VLAN tag. Allocation-free.
/// </summary>
internal static class UdpFrame
{
    public const int EthernetLength = 14;
    public const int IPv4HeaderLength = 20;
    public const int IPv6HeaderLength = 40;
    public const int UdpHeaderLength = 8;
    public const ushort EtherTypeIPv4 = 0x0800;
    public const ushort EtherTypeIPv6 = 0x86DD;
    public const ushort EtherTypeVlan = 0x8100;

    /// <summary>The default hop limit, as Linux's net.ipv4.ip_default_ttl and net.ipv6.conf.*.hop_limit.</summary>
    public const byte DefaultHopLimit = 64;

    /// <summary>The largest UDP payload: IPv4's 16-bit total length less its headers (65,535 - 20 - 8).</summary>
    public const int MaxIPv4Payload = 65_507;

    /// <summary>The largest UDP payload without a jumbogram: IPv6's 16-bit payload length less UDP's header.</summary>
    public const int MaxIPv6Payload = 65_527;

    /// <summary>Where the payload starts in a frame of <paramref name="family"/> (42 bytes for IPv4, 62 for IPv6).</summary>
    public static int HeaderLength(AddressFamily family) => family == AddressFamily.InterNetworkV6
        ? EthernetLength + IPv6HeaderLength + UdpHeaderLength
        : EthernetLength + IPv4HeaderLength + UdpHeaderLength;

    /// <summary>
    /// Writes the headers in front of the <paramref name="payloadLength"/> bytes at
    /// <c>frame[HeaderLength(family)..]</c>, with both checksums (UDP's is required for IPv6, RFC 8200 section 8.1, and
    /// computed for IPv4 too).
    /// </summary>
    /// <param name="frame">The frame: at least <c>HeaderLength + payloadLength</c> bytes.</param>
    /// <param name="sourceMac">This interface's address.</param>
    /// <param name="destinationMac">The next hop's address (the peer on-link, else the gateway).</param>
    /// <param name="source">This end's address and port; IPv4-mapped IPv6 counts as IPv4.</param>
    /// <param name="destination">The peer's address and port, of the same family as <paramref name="source"/>.</param>
    /// <param name="payloadLength">The payload's length in bytes.</param>
    /// <param name="trafficClass">The IPv4 TOS or IPv6 traffic class byte (DSCP and ECN).</param>
    /// <returns>The frame's length.</returns>
    /// <exception cref="ArgumentException">The families differ or are not IP, or the frame or the payload length does not fit.</exception>
    public static int Write(
        Span<byte> frame, MacAddress sourceMac, MacAddress destinationMac, DatagramAddress source, DatagramAddress destination, int payloadLength, byte trafficClass = 0)
    {
        source = source.Unmap();
        destination = destination.Unmap();
        var family = source.Family;
        if (family != destination.Family || family is not (AddressFamily.InterNetwork or AddressFamily.InterNetworkV6))
        {
            throw new ArgumentException($"A frame needs two addresses of one IP family (got {source.Family} and {destination.Family}).", nameof(destination));
        }

        var ipv6 = family == AddressFamily.InterNetworkV6;
        var maxPayload = ipv6 ? MaxIPv6Payload : MaxIPv4Payload;
        var headerLength = HeaderLength(family);
        if ((uint)payloadLength > (uint)maxPayload || frame.Length < headerLength + payloadLength)
        {
            throw new ArgumentException($"A {payloadLength}-byte payload does not fit a {frame.Length}-byte frame (headers {headerLength} bytes, payload at most {maxPayload}).", nameof(payloadLength));
        }

        destinationMac.WriteTo(frame);
        sourceMac.WriteTo(frame[6..]);
        BinaryPrimitives.WriteUInt16BigEndian(frame[12..], ipv6 ? EtherTypeIPv6 : EtherTypeIPv4);
        var ip = frame[EthernetLength..];
        var udpLength = UdpHeaderLength + payloadLength;
        Span<byte> udp;
        ulong pseudo;
        if (ipv6)
        {
            BinaryPrimitives.WriteUInt32BigEndian(ip, 0x6000_0000u | ((uint)trafficClass << 20));
            BinaryPrimitives.WriteUInt16BigEndian(ip[4..], (ushort)udpLength);
            ip[6] = (byte)ProtocolType.Udp;
            ip[7] = DefaultHopLimit;
            source.WriteAddressBytes(ip.Slice(8, 16));
            destination.WriteAddressBytes(ip.Slice(24, 16));
            udp = ip[IPv6HeaderLength..];
            pseudo = InternetChecksum.AddPseudoHeader(ip.Slice(8, 16), ip.Slice(24, 16), (byte)ProtocolType.Udp, udpLength);
        }
        else
        {
            ip[0] = 0x45;
            ip[1] = trafficClass;
            BinaryPrimitives.WriteUInt16BigEndian(ip[2..], (ushort)(IPv4HeaderLength + udpLength));
            // Identification 0 with don't-fragment set: an atomic datagram, which RFC 6864 lets carry any ID.
            BinaryPrimitives.WriteUInt32BigEndian(ip[4..], 0x0000_4000);
            ip[8] = DefaultHopLimit;
            ip[9] = (byte)ProtocolType.Udp;
            ip[10] = ip[11] = 0;
            source.WriteAddressBytes(ip.Slice(12, 4));
            destination.WriteAddressBytes(ip.Slice(16, 4));
            BinaryPrimitives.WriteUInt16BigEndian(ip[10..], InternetChecksum.Finish(InternetChecksum.Add(ip[..IPv4HeaderLength])));
            udp = ip[IPv4HeaderLength..];
            pseudo = InternetChecksum.AddPseudoHeader(ip.Slice(12, 4), ip.Slice(16, 4), (byte)ProtocolType.Udp, udpLength);
        }

        BinaryPrimitives.WriteUInt16BigEndian(udp, (ushort)source.Port);
        BinaryPrimitives.WriteUInt16BigEndian(udp[2..], (ushort)destination.Port);
        BinaryPrimitives.WriteUInt16BigEndian(udp[4..], (ushort)udpLength);
        udp[6] = udp[7] = 0;
        var checksum = InternetChecksum.Finish(InternetChecksum.Add(udp[..udpLength], pseudo));
        // A computed zero is sent as 0xFFFF: zero in the field means "no checksum" (RFC 768), which IPv6 forbids.
        BinaryPrimitives.WriteUInt16BigEndian(udp[6..], checksum == 0 ? (ushort)0xFFFF : checksum);
        return headerLength + payloadLength;
    }
}
