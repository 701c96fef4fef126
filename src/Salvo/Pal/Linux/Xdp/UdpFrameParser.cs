using System.Buffers.Binary;
using System.Net.Sockets;
using static Salvo.Pal.UdpFrame;

namespace Salvo.Pal;

/// <summary>Why a received frame was not taken as a UDP datagram.</summary>
internal enum UdpFrameStatus
{
    /// <summary>A whole UDP datagram with valid lengths and checksums.</summary>
    Ok,

    /// <summary>The frame ends before a header, or before the length its IP or UDP header declares.</summary>
    Truncated,

    /// <summary>Neither IPv4 nor IPv6 (after at most one 802.1Q tag).</summary>
    NotIP,

    /// <summary>IP, but not UDP (or IPv6 with an extension header first).</summary>
    NotUdp,

    /// <summary>An IPv4 fragment: the datagram is not whole in this frame.</summary>
    Fragment,

    /// <summary>The IP header is malformed: wrong version, IHL below 5, or a total length shorter than its headers.</summary>
    MalformedIP,

    /// <summary>The IPv4 header checksum does not verify.</summary>
    BadIPChecksum,

    /// <summary>The UDP length is below 8 or disagrees with the IP header's payload length.</summary>
    MalformedUdp,

    /// <summary>The UDP checksum does not verify, or is absent over IPv6 (RFC 8200 section 8.1 requires it).</summary>
    BadUdpChecksum,
}

/// <summary>
/// A received UDP frame's parts: where the payload lies in the frame, both ends' addresses, the link-layer source (the
/// address a reply goes back to when the sender is on-link or behind the same gateway), the TOS or traffic class.
/// </summary>
internal readonly struct ParsedUdpFrame
{
    public ParsedUdpFrame(MacAddress sourceMac, MacAddress destinationMac, DatagramAddress source, DatagramAddress destination, int payloadOffset, int payloadLength, byte trafficClass)
    {
        SourceMac = sourceMac;
        DestinationMac = destinationMac;
        Source = source;
        Destination = destination;
        PayloadOffset = payloadOffset;
        PayloadLength = payloadLength;
        TrafficClass = trafficClass;
    }

    public MacAddress SourceMac { get; }

    public MacAddress DestinationMac { get; }

    public DatagramAddress Source { get; }

    public DatagramAddress Destination { get; }

    public int PayloadOffset { get; }

    public int PayloadLength { get; }

    /// <summary>The IPv4 TOS or IPv6 traffic class byte; its low two bits are the ECN codepoint.</summary>
    public byte TrafficClass { get; }

    public ReadOnlySpan<byte> Payload(ReadOnlySpan<byte> frame) => frame.Slice(PayloadOffset, PayloadLength);
}

/// <summary>Parses and validates a received Ethernet frame carrying UDP over IPv4 or IPv6. Allocation-free.</summary>
internal static class UdpFrameParser
{
    /// <summary>Parses <paramref name="frame"/>; <paramref name="parsed"/> is meaningful only when the result is <see cref="UdpFrameStatus.Ok"/>.</summary>
    /// <param name="frame">The frame as received, from the destination MAC on; trailing Ethernet padding is allowed.</param>
    /// <param name="parsed">The datagram's parts.</param>
    /// <param name="verifyUdpChecksum">
    /// False to accept the UDP checksum unverified: for frames from a local sender whose checksum the kernel left to
    /// an offload that never ran (CHECKSUM_PARTIAL over veth, where the field holds only the pseudo-header's sum).
    /// </param>
    public static UdpFrameStatus TryParse(ReadOnlySpan<byte> frame, out ParsedUdpFrame parsed, bool verifyUdpChecksum = true)
    {
        parsed = default;
        if (frame.Length < EthernetLength)
        {
            return UdpFrameStatus.Truncated;
        }

        var etherType = BinaryPrimitives.ReadUInt16BigEndian(frame[12..]);
        var network = EthernetLength;
        if (etherType == EtherTypeVlan)
        {
            if (frame.Length < EthernetLength + 4)
            {
                return UdpFrameStatus.Truncated;
            }

            etherType = BinaryPrimitives.ReadUInt16BigEndian(frame[16..]);
            network += 4;
        }

        var ip = frame[network..];
        int udpOffset;
        int udpLength;
        byte trafficClass;
        ulong pseudo;
        DatagramAddress source;
        DatagramAddress destination;
        bool ipv6;
        switch (etherType)
        {
            case EtherTypeIPv4:
            {
                if (ip.Length < IPv4HeaderLength)
                {
                    return UdpFrameStatus.Truncated;
                }

                var headerLength = (ip[0] & 0x0F) * 4;
                var totalLength = BinaryPrimitives.ReadUInt16BigEndian(ip[2..]);
                if ((ip[0] >> 4) != 4 || headerLength < IPv4HeaderLength || totalLength < headerLength)
                {
                    return UdpFrameStatus.MalformedIP;
                }

                if (ip.Length < totalLength)
                {
                    return UdpFrameStatus.Truncated;
                }

                if (InternetChecksum.Finish(InternetChecksum.Add(0, ip[..headerLength])) != 0)
                {
                    return UdpFrameStatus.BadIPChecksum;
                }

                if ((BinaryPrimitives.ReadUInt16BigEndian(ip[6..]) & 0x3FFF) != 0)
                {
                    return UdpFrameStatus.Fragment;
                }

                if (ip[9] != (byte)ProtocolType.Udp)
                {
                    return UdpFrameStatus.NotUdp;
                }

                ipv6 = false;
                trafficClass = ip[1];
                udpOffset = network + headerLength;
                udpLength = totalLength - headerLength;
                pseudo = InternetChecksum.Add(0, ip.Slice(12, 8));
                source = DatagramAddress.FromIPv4Bytes(ip.Slice(12, 4), 0);
                destination = DatagramAddress.FromIPv4Bytes(ip.Slice(16, 4), 0);
                break;
            }

            case EtherTypeIPv6:
            {
                if (ip.Length < IPv6HeaderLength)
                {
                    return UdpFrameStatus.Truncated;
                }

                if ((ip[0] >> 4) != 6)
                {
                    return UdpFrameStatus.MalformedIP;
                }

                var payloadLength = BinaryPrimitives.ReadUInt16BigEndian(ip[4..]);
                if (ip.Length < IPv6HeaderLength + payloadLength)
                {
                    return UdpFrameStatus.Truncated;
                }

                if (ip[6] != (byte)ProtocolType.Udp)
                {
                    return UdpFrameStatus.NotUdp;
                }

                ipv6 = true;
                trafficClass = (byte)(BinaryPrimitives.ReadUInt16BigEndian(ip) >> 4);
                udpOffset = network + IPv6HeaderLength;
                udpLength = payloadLength;
                pseudo = InternetChecksum.Add(0, ip.Slice(8, 32));
                source = DatagramAddress.FromIPv6Bytes(ip.Slice(8, 16), 0);
                destination = DatagramAddress.FromIPv6Bytes(ip.Slice(24, 16), 0);
                break;
            }

            default:
                return UdpFrameStatus.NotIP;
        }

        if (udpLength < UdpHeaderLength)
        {
            return UdpFrameStatus.MalformedUdp;
        }

        var udp = frame.Slice(udpOffset, udpLength);
        if (BinaryPrimitives.ReadUInt16BigEndian(udp[4..]) != udpLength)
        {
            return UdpFrameStatus.MalformedUdp;
        }

        var checksum = BinaryPrimitives.ReadUInt16BigEndian(udp[6..]);
        if (checksum == 0 ? ipv6 : verifyUdpChecksum && !UdpChecksumVerifies(pseudo, udp))
        {
            return UdpFrameStatus.BadUdpChecksum;
        }

        parsed = new ParsedUdpFrame(
            MacAddress.Read(frame[6..]),
            MacAddress.Read(frame),
            source.WithPort(BinaryPrimitives.ReadUInt16BigEndian(udp)),
            destination.WithPort(BinaryPrimitives.ReadUInt16BigEndian(udp[2..])),
            udpOffset + UdpHeaderLength,
            udpLength - UdpHeaderLength,
            trafficClass);
        return UdpFrameStatus.Ok;
    }

    private static bool UdpChecksumVerifies(ulong pseudo, ReadOnlySpan<byte> udp)
    {
        var sum = InternetChecksum.AddWord(InternetChecksum.AddWord(pseudo, (int)ProtocolType.Udp), udp.Length);
        return InternetChecksum.Finish(InternetChecksum.Add(sum, udp)) == 0;
    }
}
