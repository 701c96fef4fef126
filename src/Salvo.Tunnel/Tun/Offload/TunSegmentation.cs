using System.Buffers.Binary;
using Salvo.Internal;

namespace Salvo.Tunnel.Offload;

/// <summary>
/// Cuts a TCP or UDP super-packet that a TUN device with TSO/USO hands over (up to 64 KiB behind one set of headers,
/// described by its <see cref="VirtioNetHeader"/>) into the MTU-sized packets the tunnel encrypts, doing what a NIC
/// would: each segment repeats the headers, with its own IP length (and IPv4 id, incremented as the kernel's
/// tcp_gso_segment and the NIC do), TCP sequence number or UDP length, and complete checksums. FIN and PSH stay on
/// the last segment only and CWR on the first only (net/ipv4/tcp_offload.c, tcp_gso_segment).
/// </summary>
internal static class TunSegmentation
{
    private const int IPv4HeaderMinimum = 20;
    private const int IPv6HeaderLength = 40;
    private const int TcpHeaderMinimum = 20;
    private const int UdpHeaderLength = 8;
    private const byte TcpFin = 0x01;
    private const byte TcpPsh = 0x08;
    private const byte TcpCwr = 0x80;

    /// <summary>
    /// Checks a read's header against the packet behind it and plans the cut; false for a header that does not
    /// describe the packet (the caller drops it and counts it).
    /// </summary>
    public static bool TryPlan(VirtioNetHeader header, ReadOnlySpan<byte> packet, out SegmentLayout layout)
    {
        layout = default;
        if (packet.IsEmpty)
        {
            return false;
        }

        var isIPv6 = packet[0] >> 4 == 6;
        if (header.GsoType == VirtioNetHeader.GsoNone)
        {
            var needsChecksum = (header.Flags & VirtioNetHeader.NeedsChecksum) != 0;
            if (needsChecksum && header.ChecksumStart + header.ChecksumOffset + 2 > packet.Length)
            {
                return false;
            }

            layout = new SegmentLayout(isIPv6, 0, 0, packet.Length, 0, 1, packet.Length, header);
            return true;
        }

        int ipHeaderLength;
        byte protocol;
        if (packet[0] >> 4 == 4 && packet.Length >= IPv4HeaderMinimum)
        {
            ipHeaderLength = (packet[0] & 0x0F) * 4;
            protocol = packet[9];
        }
        else if (isIPv6 && packet.Length >= IPv6HeaderLength)
        {
            ipHeaderLength = IPv6HeaderLength;
            protocol = packet[6];
        }
        else
        {
            return false;
        }

        var expected = header.GsoType & ~VirtioNetHeader.GsoEcn;
        var typeMatches = expected switch
        {
            VirtioNetHeader.GsoTcpV4 => !isIPv6 && protocol == SegmentLayout.Tcp,
            VirtioNetHeader.GsoTcpV6 => isIPv6 && protocol == SegmentLayout.Tcp,
            VirtioNetHeader.GsoUdpL4 => protocol == SegmentLayout.Udp,
            _ => false,
        };

        // The transport header must follow the IP header directly (no IPv4 options beyond IHL, no IPv6 extension
        // headers): that is all TSO and USO produce for a socket's own traffic.
        if (!typeMatches || ipHeaderLength < IPv4HeaderMinimum || header.GsoSize == 0 || header.ChecksumStart != ipHeaderLength)
        {
            return false;
        }

        int transportHeaderLength;
        if (protocol == SegmentLayout.Tcp)
        {
            if (packet.Length < ipHeaderLength + TcpHeaderMinimum)
            {
                return false;
            }

            // hdr_len is the kernel's estimate and may be larger than the real headers; the TCP data offset is exact.
            transportHeaderLength = (packet[ipHeaderLength + 12] >> 4) * 4;
            if (transportHeaderLength < TcpHeaderMinimum)
            {
                return false;
            }
        }
        else
        {
            transportHeaderLength = UdpHeaderLength;
        }

        var headersLength = ipHeaderLength + transportHeaderLength;
        if (headersLength > packet.Length)
        {
            return false;
        }

        var payload = packet.Length - headersLength;
        var count = Math.Max(1, (payload + header.GsoSize - 1) / header.GsoSize);
        layout = new SegmentLayout(isIPv6, protocol, ipHeaderLength, headersLength, header.GsoSize, count, packet.Length, header);
        return true;
    }

    /// <summary>The length segment <paramref name="index"/> of <paramref name="layout"/> will have.</summary>
    public static int SegmentLength(in SegmentLayout layout, int index) => layout.IsSinglePacket
        ? layout.PacketLength
        : layout.HeadersLength + Math.Min(layout.SegmentSize, layout.PacketLength - layout.HeadersLength - (index * layout.SegmentSize));

    /// <summary>
    /// Writes segment <paramref name="index"/> (0 to Count - 1) of <paramref name="packet"/> into
    /// <paramref name="destination"/> with its headers fixed and its checksums complete; returns its length, or 0
    /// when <paramref name="destination"/> is too short.
    /// </summary>
    public static int WriteSegment(in SegmentLayout layout, ReadOnlySpan<byte> packet, int index, Span<byte> destination)
    {
        var length = SegmentLength(layout, index);
        if (length > destination.Length)
        {
            return 0;
        }

        var segment = destination[..length];
        if (layout.IsSinglePacket)
        {
            packet[..length].CopyTo(segment);
            if ((layout.Header.Flags & VirtioNetHeader.NeedsChecksum) != 0)
            {
                // CHECKSUM_PARTIAL (include/linux/skbuff.h): the field already holds the pseudo-header sum; what is
                // missing is the sum from csum_start to the end.
                var field = segment[(layout.Header.ChecksumStart + layout.Header.ChecksumOffset)..];
                var checksum = InternetChecksum.Finish(InternetChecksum.Add(segment[layout.Header.ChecksumStart..], 0));
                BinaryPrimitives.WriteUInt16BigEndian(field, checksum);
            }

            return length;
        }

        var payloadStart = layout.HeadersLength + (index * layout.SegmentSize);
        packet[..layout.HeadersLength].CopyTo(segment);
        packet.Slice(payloadStart, length - layout.HeadersLength).CopyTo(segment[layout.HeadersLength..]);

        PacketLengths.Rewrite(segment, layout.IPHeaderLength, layout.IsIPv6, layout.Protocol, idOffset: index);
        var ip = segment[..layout.IPHeaderLength];
        var transport = segment[layout.IPHeaderLength..];
        int checksumOffset;
        if (layout.Protocol == SegmentLayout.Tcp)
        {
            var sequence = BinaryPrimitives.ReadUInt32BigEndian(transport[4..]);
            BinaryPrimitives.WriteUInt32BigEndian(transport[4..], unchecked(sequence + (uint)(index * layout.SegmentSize)));
            if (index < layout.Count - 1)
            {
                transport[13] &= unchecked((byte)~(TcpFin | TcpPsh));
            }

            if (index > 0)
            {
                transport[13] &= unchecked((byte)~TcpCwr);
            }

            checksumOffset = 16;
        }
        else
        {
            checksumOffset = 6;
        }

        transport[checksumOffset] = 0;
        transport[checksumOffset + 1] = 0;
        var sum = InternetChecksum.AddPseudoHeader(SourceAddress(ip, layout.IsIPv6), DestinationAddress(ip, layout.IsIPv6), layout.Protocol, transport.Length, 0);
        var value = InternetChecksum.Finish(InternetChecksum.Add(transport, sum));
        if (value == 0 && layout.Protocol == SegmentLayout.Udp)
        {
            // RFC 768: a computed zero is sent as all ones (zero means "no checksum").
            value = 0xFFFF;
        }

        BinaryPrimitives.WriteUInt16BigEndian(transport[checksumOffset..], value);
        return length;
    }

    /// <summary>The source address bytes of an IPv4 or IPv6 header.</summary>
    internal static ReadOnlySpan<byte> SourceAddress(ReadOnlySpan<byte> ip, bool isIPv6) => isIPv6 ? ip.Slice(8, 16) : ip.Slice(12, 4);

    /// <summary>The destination address bytes of an IPv4 or IPv6 header.</summary>
    internal static ReadOnlySpan<byte> DestinationAddress(ReadOnlySpan<byte> ip, bool isIPv6) => isIPv6 ? ip.Slice(24, 16) : ip.Slice(16, 4);
}
