using System.Buffers.Binary;
using Salvo.Internal;

namespace Salvo.Tunnel.Offload;

/// <summary>
/// The fields of a decrypted TCP or UDP packet that decide whether it may join a super-packet: where its headers end,
/// its flow, and for TCP its sequence number and flags. <see cref="TryRead"/> refuses what coalescing must pass by
/// whole: other protocols, IPv4 options or fragments, IPv6 extension headers, a length that disagrees with the header.
/// </summary>
internal readonly ref struct InnerPacket
{
    public const byte TcpAck = 0x10;
    public const byte TcpPsh = 0x08;

    private InnerPacket(ReadOnlySpan<byte> bytes, bool isIPv6, byte protocol, int ipHeaderLength, int headersLength)
    {
        Bytes = bytes;
        IsIPv6 = isIPv6;
        Protocol = protocol;
        IPHeaderLength = ipHeaderLength;
        HeadersLength = headersLength;
    }

    public ReadOnlySpan<byte> Bytes { get; }

    public bool IsIPv6 { get; }

    public byte Protocol { get; }

    public int IPHeaderLength { get; }

    public int HeadersLength { get; }

    public int PayloadLength => Bytes.Length - HeadersLength;

    public ReadOnlySpan<byte> Transport => Bytes[IPHeaderLength..];

    public uint Sequence => BinaryPrimitives.ReadUInt32BigEndian(Transport[4..]);

    public byte TcpFlags => Transport[13];

    public static bool TryRead(ReadOnlySpan<byte> bytes, out InnerPacket packet)
    {
        packet = default;
        int ipHeaderLength;
        byte protocol;
        if (bytes.Length >= 20 && bytes[0] == 0x45)
        {
            // IHL 5 only; MF clear and offset 0 (bytes 6-7 masked to those 14 bits): not a fragment.
            if (BinaryPrimitives.ReadUInt16BigEndian(bytes[2..]) != bytes.Length || (BinaryPrimitives.ReadUInt16BigEndian(bytes[6..]) & 0x3FFF) != 0)
            {
                return false;
            }

            ipHeaderLength = 20;
            protocol = bytes[9];
        }
        else if (bytes.Length >= 40 && bytes[0] >> 4 == 6)
        {
            if (BinaryPrimitives.ReadUInt16BigEndian(bytes[4..]) + 40 != bytes.Length)
            {
                return false;
            }

            ipHeaderLength = 40;
            protocol = bytes[6];
        }
        else
        {
            return false;
        }

        int transportHeaderLength;
        if (protocol == SegmentLayout.Tcp && bytes.Length >= ipHeaderLength + 20)
        {
            transportHeaderLength = (bytes[ipHeaderLength + 12] >> 4) * 4;
            if (transportHeaderLength < 20)
            {
                return false;
            }
        }
        else if (protocol == SegmentLayout.Udp && bytes.Length >= ipHeaderLength + 8)
        {
            transportHeaderLength = 8;
            if (BinaryPrimitives.ReadUInt16BigEndian(bytes[(ipHeaderLength + 4)..]) != bytes.Length - ipHeaderLength)
            {
                return false;
            }
        }
        else
        {
            return false;
        }

        if (ipHeaderLength + transportHeaderLength > bytes.Length)
        {
            return false;
        }

        packet = new InnerPacket(bytes, bytes[0] >> 4 == 6, protocol, ipHeaderLength, ipHeaderLength + transportHeaderLength);
        return true;
    }

    /// <summary>Same addresses, protocol and ports (the flow a super-packet belongs to).</summary>
    public bool IsSameFlow(ReadOnlySpan<byte> other)
    {
        var addresses = IsIPv6 ? Bytes.Slice(8, 32) : Bytes.Slice(12, 8);
        var otherAddresses = IsIPv6 ? other.Slice(8, 32) : other.Slice(12, 8);
        return other.Length >= HeadersLength
            && other[0] >> 4 == Bytes[0] >> 4
            && (IsIPv6 ? other[6] : other[9]) == Protocol
            && addresses.SequenceEqual(otherAddresses)
            && Transport[..4].SequenceEqual(other.Slice(IPHeaderLength, 4));
    }

    /// <summary>
    /// Whether the IP headers agree in everything a merged packet keeps from the first (TOS, DF, TTL; IPv6 traffic
    /// class, flow label and hop limit), and for TCP the header length, acknowledgment and options agree too.
    /// </summary>
    public bool HasSameHeaders(ReadOnlySpan<byte> first)
    {
        if (IsIPv6)
        {
            if (!Bytes[..4].SequenceEqual(first[..4]) || Bytes[7] != first[7])
            {
                return false;
            }
        }
        else if (Bytes[1] != first[1] || Bytes[6] != first[6] || Bytes[8] != first[8])
        {
            return false;
        }

        if (Protocol != SegmentLayout.Tcp)
        {
            return true;
        }

        var transport = Transport;
        var firstTransport = first[IPHeaderLength..];
        return transport[12] >> 4 == firstTransport[12] >> 4
            && transport.Slice(8, 4).SequenceEqual(firstTransport.Slice(8, 4))
            && transport[20..(HeadersLength - IPHeaderLength)].SequenceEqual(firstTransport[20..(HeadersLength - IPHeaderLength)]);
    }

    /// <summary>Whether the layer-4 checksum is right (a packet whose checksum is wrong is passed on alone, for the kernel to drop).</summary>
    public bool HasValidChecksum()
    {
        var sum = InternetChecksum.AddPseudoHeader(
            TunSegmentation.SourceAddress(Bytes, IsIPv6), TunSegmentation.DestinationAddress(Bytes, IsIPv6), Protocol, Bytes.Length - IPHeaderLength, 0);
        return InternetChecksum.Fold(InternetChecksum.Add(Transport, sum)) == 0xFFFF;
    }
}
