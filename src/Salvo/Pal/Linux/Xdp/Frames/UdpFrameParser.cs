using System.Buffers.Binary;
using System.Net.Sockets;
using Salvo.Internal;
using static Salvo.Pal.UdpFrame;

namespace Salvo.Pal;

/// <summary>A received frame's verdict: <see cref="Ok"/>, or why it is dropped (the same values as <see cref="FrameDropReason"/>).</summary>
internal enum UdpFrameStatus
{
    /// <summary>A whole UDP datagram with valid lengths and checksums.</summary>
    Ok = 0,

    /// <inheritdoc cref="FrameDropReason.Truncated"/>
    Truncated = FrameDropReason.Truncated,

    /// <inheritdoc cref="FrameDropReason.NotIP"/>
    NotIP = FrameDropReason.NotIP,

    /// <inheritdoc cref="FrameDropReason.NotUdp"/>
    NotUdp = FrameDropReason.NotUdp,

    /// <inheritdoc cref="FrameDropReason.Fragment"/>
    Fragment = FrameDropReason.Fragment,

    /// <inheritdoc cref="FrameDropReason.MalformedIP"/>
    MalformedIP = FrameDropReason.MalformedIP,

    /// <inheritdoc cref="FrameDropReason.BadIPChecksum"/>
    BadIPChecksum = FrameDropReason.BadIPChecksum,

    /// <inheritdoc cref="FrameDropReason.MalformedUdp"/>
    MalformedUdp = FrameDropReason.MalformedUdp,

    /// <inheritdoc cref="FrameDropReason.BadUdpChecksum"/>
    BadUdpChecksum = FrameDropReason.BadUdpChecksum,

    /// <inheritdoc cref="FrameDropReason.VlanTagged"/>
    VlanTagged = FrameDropReason.VlanTagged,

    /// <inheritdoc cref="FrameDropReason.OtherHost"/>
    OtherHost = FrameDropReason.OtherHost,

    /// <inheritdoc cref="FrameDropReason.MartianSource"/>
    MartianSource = FrameDropReason.MartianSource,

    /// <inheritdoc cref="FrameDropReason.MulticastSource"/>
    MulticastSource = FrameDropReason.MulticastSource,

    /// <inheritdoc cref="FrameDropReason.ZeroSourcePort"/>
    ZeroSourcePort = FrameDropReason.ZeroSourcePort,

    /// <inheritdoc cref="FrameDropReason.OtherDestination"/>
    OtherDestination = FrameDropReason.OtherDestination,
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

/// <summary>
/// Parses and validates a received Ethernet frame carrying UDP over IPv4 or IPv6, with the checks the kernel's receive
/// makes that need nothing but the frame (the table in docs/design.md names each and its kernel source); the checks that
/// need the host (its MAC, its addresses) are <see cref="UdpReceivePolicy"/>'s. Allocation-free.
/// </summary>
internal static class UdpFrameParser
{
    // The 802.1Q tag's low 12 bits are the VLAN id; 0 is a priority tag, which the kernel takes as untagged.
    private const int VlanIdMask = 0x0FFF;

    /// <summary>Parses <paramref name="frame"/>; <paramref name="parsed"/> is meaningful only when the result is <see cref="UdpFrameStatus.Ok"/>.</summary>
    /// <param name="frame">The frame as received, from the destination MAC on; trailing Ethernet padding is allowed.</param>
    /// <param name="parsed">The datagram's parts.</param>
    /// <param name="acceptPseudoHeaderChecksum">
    /// True to take a UDP checksum field that holds only the pseudo-header's sum as unverified rather than wrong: what a
    /// local sender's CHECKSUM_PARTIAL packet carries when the offload that would finish the sum never runs (a veth
    /// peer seen through a copy-mode AF_XDP socket). Any other wrong checksum is refused either way.
    /// </param>
    public static UdpFrameStatus TryParse(ReadOnlySpan<byte> frame, out ParsedUdpFrame parsed, bool acceptPseudoHeaderChecksum = false)
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

            // A tagged frame reaches an untagged socket only through a VLAN device; on the bare interface the kernel marks
            // one with a VLAN id PACKET_OTHERHOST and IP drops it (net/core/dev.c, __netif_receive_skb_core).
            if ((BinaryPrimitives.ReadUInt16BigEndian(frame[14..]) & VlanIdMask) != 0)
            {
                return UdpFrameStatus.VlanTagged;
            }

            etherType = BinaryPrimitives.ReadUInt16BigEndian(frame[16..]);
            network += 4;
        }

        var ip = frame[network..];
        int udpOffset;
        int ipPayloadLength;
        byte trafficClass;
        ReadOnlySpan<byte> sourceBytes, destinationBytes;
        UdpFrameStatus sourceVerdict;
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

                if (InternetChecksum.Finish(InternetChecksum.Add(ip[..headerLength])) != 0)
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
                ipPayloadLength = totalLength - headerLength;
                sourceBytes = ip.Slice(12, 4);
                destinationBytes = ip.Slice(16, 4);
                sourceVerdict = UdpSourceAddress.CheckIPv4(BinaryPrimitives.ReadUInt32BigEndian(ip[12..]));
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
                ipPayloadLength = payloadLength;
                sourceBytes = ip.Slice(8, 16);
                destinationBytes = ip.Slice(24, 16);
                sourceVerdict = UdpSourceAddress.CheckIPv6(ip.Slice(8, 16));
                source = DatagramAddress.FromIPv6Bytes(ip.Slice(8, 16), 0);
                destination = DatagramAddress.FromIPv6Bytes(ip.Slice(24, 16), 0);
                break;
            }

            default:
                return UdpFrameStatus.NotIP;
        }

        if (ipPayloadLength < UdpHeaderLength)
        {
            return UdpFrameStatus.MalformedUdp;
        }

        // The UDP length may be shorter than the IP payload: the kernel trims the datagram to it and delivers
        // (net/ipv4/udp.c, __udp4_lib_rcv: pskb_trim_rcsum); longer is a short packet, dropped. Over IPv6 a zero length
        // means "the whole payload" (net/ipv6/udp.c, __udp6_lib_rcv, the jumbogram rule of RFC 2675).
        int udpLength = BinaryPrimitives.ReadUInt16BigEndian(frame[(udpOffset + 4)..]);
        if (ipv6 && udpLength == 0)
        {
            udpLength = ipPayloadLength;
        }

        if (udpLength < UdpHeaderLength || udpLength > ipPayloadLength)
        {
            return UdpFrameStatus.MalformedUdp;
        }

        var udp = frame.Slice(udpOffset, udpLength);
        var checksum = BinaryPrimitives.ReadUInt16BigEndian(udp[6..]);
        if (checksum == 0 ? ipv6 : !UdpChecksumVerifies(sourceBytes, destinationBytes, udp, checksum, acceptPseudoHeaderChecksum))
        {
            return UdpFrameStatus.BadUdpChecksum;
        }

        if (sourceVerdict != UdpFrameStatus.Ok)
        {
            return sourceVerdict;
        }

        var sourcePort = BinaryPrimitives.ReadUInt16BigEndian(udp);
        if (sourcePort == 0)
        {
            return UdpFrameStatus.ZeroSourcePort;
        }

        parsed = new ParsedUdpFrame(
            MacAddress.Read(frame[6..]),
            MacAddress.Read(frame),
            source.WithPort(sourcePort),
            destination.WithPort(BinaryPrimitives.ReadUInt16BigEndian(udp[2..])),
            udpOffset + UdpHeaderLength,
            udpLength - UdpHeaderLength,
            trafficClass);
        return UdpFrameStatus.Ok;
    }

    private static bool UdpChecksumVerifies(
        ReadOnlySpan<byte> source, ReadOnlySpan<byte> destination, ReadOnlySpan<byte> udp, ushort field, bool acceptPseudoHeaderChecksum)
    {
        var pseudoHeader = InternetChecksum.AddPseudoHeader(source, destination, (byte)ProtocolType.Udp, udp.Length);
        if (InternetChecksum.Finish(InternetChecksum.Add(udp, pseudoHeader)) == 0)
        {
            return true;
        }

        // A CHECKSUM_PARTIAL packet's field holds the folded pseudo-header sum, uncomplemented (net/ipv4/udp.c,
        // udp4_hwcsum: ~csum_tcpudp_magic(..., 0)): the complement of what the full checksum of the pseudo-header alone is.
        return acceptPseudoHeaderChecksum && field == InternetChecksum.Fold(pseudoHeader);
    }
}
