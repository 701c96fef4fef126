using System.Buffers.Binary;
using Salvo.Internal;

namespace Salvo.Tunnel.Offload;

/// <summary>
/// The header fields that follow a packet's length, rewritten after it was cut from a super-packet or joined into
/// one: the IP length field, for IPv4 the identification and the header checksum, and for UDP the UDP length.
/// </summary>
internal static class PacketLengths
{
    private const int IPv6HeaderLength = 40;

    /// <summary>
    /// Whether <paramref name="packet"/> is shorter than its IP header says: a read into a buffer too small for the
    /// packet returns the buffer's length and loses the rest (seen from a TUN read on Linux 6.x), so a read that fills
    /// its buffer is checked here.
    /// </summary>
    public static bool IsCutShort(ReadOnlySpan<byte> packet) => (packet.Length > 0 ? packet[0] >> 4 : 0) switch
    {
        4 when packet.Length >= 4 => BinaryPrimitives.ReadUInt16BigEndian(packet[2..]) > packet.Length,
        6 when packet.Length >= 6 => IPv6HeaderLength + BinaryPrimitives.ReadUInt16BigEndian(packet[4..]) > packet.Length,
        _ => false,
    };

    /// <param name="packet">The whole packet, headers first.</param>
    /// <param name="ipHeaderLength">Bytes of the IP header (IPv4 with options, or the 40 of IPv6).</param>
    /// <param name="isIPv6">IPv6 rather than IPv4.</param>
    /// <param name="protocol">The transport protocol (<see cref="SegmentLayout.Tcp"/> or <see cref="SegmentLayout.Udp"/>).</param>
    /// <param name="idOffset">Added to an IPv4 identification: a segment's index, as the kernel numbers GSO segments.</param>
    public static void Rewrite(Span<byte> packet, int ipHeaderLength, bool isIPv6, byte protocol, int idOffset)
    {
        var ip = packet[..ipHeaderLength];
        if (isIPv6)
        {
            BinaryPrimitives.WriteUInt16BigEndian(ip[4..], (ushort)(packet.Length - IPv6HeaderLength));
        }
        else
        {
            BinaryPrimitives.WriteUInt16BigEndian(ip[2..], (ushort)packet.Length);
            BinaryPrimitives.WriteUInt16BigEndian(ip[4..], (ushort)(BinaryPrimitives.ReadUInt16BigEndian(ip[4..]) + idOffset));
            ip[10] = 0;
            ip[11] = 0;
            BinaryPrimitives.WriteUInt16BigEndian(ip[10..], InternetChecksum.Finish(InternetChecksum.Add(ip, 0)));
        }

        if (protocol == SegmentLayout.Udp)
        {
            BinaryPrimitives.WriteUInt16BigEndian(packet[(ipHeaderLength + 4)..], (ushort)(packet.Length - ipHeaderLength));
        }
    }
}
