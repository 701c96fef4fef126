using System.Buffers.Binary;
using System.Net;

namespace Salvo.Tunnel.Tests.Offload;

/// <summary>
/// IPv4 and IPv6 TCP and UDP packets built field by field, with checksums from a plain word-by-word sum (RFC 1071 as
/// written), independent of the code under test, so segments and super-packets can be compared byte for byte.
/// </summary>
internal static class TestPackets
{
    public const byte Fin = 0x01;
    public const byte Syn = 0x02;
    public const byte Rst = 0x04;
    public const byte Psh = 0x08;
    public const byte Ack = 0x10;
    public const byte Cwr = 0x80;

    public static readonly IPAddress SourceV4 = IPAddress.Parse("198.19.0.1");
    public static readonly IPAddress DestinationV4 = IPAddress.Parse("198.19.0.2");
    public static readonly IPAddress SourceV6 = IPAddress.Parse("fd00::1");
    public static readonly IPAddress DestinationV6 = IPAddress.Parse("fd00::2");

    public static byte[] Payload(int length, int seed = 1)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    public static byte[] Tcp(
        bool ipv6, ReadOnlySpan<byte> payload, uint sequence, byte flags = Ack, ushort ipId = 100, ushort sourcePort = 40000,
        byte[]? options = null, byte ttl = 64, uint acknowledgment = 7777)
    {
        options ??= [];
        var transport = new byte[20 + options.Length + payload.Length];
        BinaryPrimitives.WriteUInt16BigEndian(transport, sourcePort);
        BinaryPrimitives.WriteUInt16BigEndian(transport.AsSpan(2), 5201);
        BinaryPrimitives.WriteUInt32BigEndian(transport.AsSpan(4), sequence);
        BinaryPrimitives.WriteUInt32BigEndian(transport.AsSpan(8), acknowledgment);
        transport[12] = (byte)((20 + options.Length) / 4 << 4);
        transport[13] = flags;
        BinaryPrimitives.WriteUInt16BigEndian(transport.AsSpan(14), 512);
        options.CopyTo(transport.AsSpan(20));
        payload.CopyTo(transport.AsSpan(20 + options.Length));
        return Wrap(ipv6, 6, transport, 16, ipId, ttl);
    }

    public static byte[] Udp(bool ipv6, ReadOnlySpan<byte> payload, ushort ipId = 100, ushort sourcePort = 40000)
    {
        var transport = new byte[8 + payload.Length];
        BinaryPrimitives.WriteUInt16BigEndian(transport, sourcePort);
        BinaryPrimitives.WriteUInt16BigEndian(transport.AsSpan(2), 5201);
        BinaryPrimitives.WriteUInt16BigEndian(transport.AsSpan(4), (ushort)transport.Length);
        payload.CopyTo(transport.AsSpan(8));
        return Wrap(ipv6, 17, transport, 6, ipId, 64);
    }

    public static byte[] Icmp(ReadOnlySpan<byte> payload)
    {
        var transport = new byte[8 + payload.Length];
        transport[0] = 8;
        payload.CopyTo(transport.AsSpan(8));
        var packet = new byte[20 + transport.Length];
        WriteIPv4(packet, 1, 100, 64);
        transport.CopyTo(packet.AsSpan(20));
        return packet;
    }

    /// <summary>Whether the packet's IPv4 header checksum (when IPv4) and layer-4 checksum are both right.</summary>
    public static bool ChecksumsValid(ReadOnlySpan<byte> packet)
    {
        var ipv6 = packet[0] >> 4 == 6;
        var ipHeader = ipv6 ? 40 : (packet[0] & 0xF) * 4;
        if (!ipv6 && Sum(packet[..ipHeader], 0) != 0xFFFF)
        {
            return false;
        }

        var protocol = ipv6 ? packet[6] : packet[9];
        return Sum(packet[ipHeader..], PseudoHeader(packet, ipv6, protocol, packet.Length - ipHeader)) == 0xFFFF;
    }

    /// <summary>The folded pseudo-header sum: what a CHECKSUM_PARTIAL packet carries in its checksum field.</summary>
    public static ushort PartialChecksum(ReadOnlySpan<byte> packet)
    {
        var ipv6 = packet[0] >> 4 == 6;
        var protocol = ipv6 ? packet[6] : packet[9];
        var ipHeader = ipv6 ? 40 : 20;
        return (ushort)Fold(PseudoHeader(packet, ipv6, protocol, packet.Length - ipHeader));
    }

    private static byte[] Wrap(bool ipv6, byte protocol, byte[] transport, int checksumOffset, ushort ipId, byte ttl)
    {
        var ipHeader = ipv6 ? 40 : 20;
        var packet = new byte[ipHeader + transport.Length];
        if (ipv6)
        {
            packet[0] = 0x60;
            BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(4), (ushort)transport.Length);
            packet[6] = protocol;
            packet[7] = ttl;
            SourceV6.GetAddressBytes().CopyTo(packet, 8);
            DestinationV6.GetAddressBytes().CopyTo(packet, 24);
        }
        else
        {
            WriteIPv4(packet, protocol, ipId, ttl);
        }

        transport.CopyTo(packet, ipHeader);
        var sum = (ushort)~Fold(Sum(transport, PseudoHeader(packet, ipv6, protocol, transport.Length)));
        if (protocol == 17 && sum == 0)
        {
            sum = 0xFFFF;
        }

        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(ipHeader + checksumOffset), sum);
        return packet;
    }

    private static void WriteIPv4(byte[] packet, byte protocol, ushort ipId, byte ttl)
    {
        packet[0] = 0x45;
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)packet.Length);
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(4), ipId);
        packet[6] = 0x40;
        packet[8] = ttl;
        packet[9] = protocol;
        SourceV4.GetAddressBytes().CopyTo(packet, 12);
        DestinationV4.GetAddressBytes().CopyTo(packet, 16);
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(10), (ushort)~Fold(Sum(packet.AsSpan(0, 20), 0)));
    }

    private static uint PseudoHeader(ReadOnlySpan<byte> packet, bool ipv6, byte protocol, int length)
    {
        var addresses = ipv6 ? packet.Slice(8, 32) : packet.Slice(12, 8);
        return Sum(addresses, (uint)(protocol + length));
    }

    private static uint Sum(ReadOnlySpan<byte> data, uint sum)
    {
        for (var i = 0; i < data.Length; i += 2)
        {
            sum += (uint)(data[i] << 8) + (i + 1 < data.Length ? data[i + 1] : 0u);
            sum = Fold(sum);
        }

        return sum;
    }

    private static uint Fold(uint sum)
    {
        while (sum > 0xFFFF)
        {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }

        return sum;
    }
}
