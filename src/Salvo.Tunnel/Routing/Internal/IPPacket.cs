using System.Buffers.Binary;

namespace Salvo.Tunnel.Routing;

/// <summary>Reads the few IP header fields the tunnel needs (RFC 791, RFC 8200), with bounds checks.</summary>
internal static class IPPacket
{
    private const int IPv4HeaderSize = 20;
    private const int IPv6HeaderSize = 40;

    /// <summary>The IP version nibble: 4, 6, or 0 for an empty buffer.</summary>
    public static int Version(ReadOnlySpan<byte> packet) => packet.IsEmpty ? 0 : packet[0] >> 4;

    /// <summary>The length the header declares (IPv4 total length; IPv6 payload length + 40); 0 when not a whole header.</summary>
    public static int DeclaredLength(ReadOnlySpan<byte> packet) => Version(packet) switch
    {
        4 when packet.Length >= IPv4HeaderSize => BinaryPrimitives.ReadUInt16BigEndian(packet[2..]),
        6 when packet.Length >= IPv6HeaderSize => BinaryPrimitives.ReadUInt16BigEndian(packet[4..]) + IPv6HeaderSize,
        _ => 0,
    };

    /// <summary>The source address bytes (4 or 16).</summary>
    public static bool TryGetSource(ReadOnlySpan<byte> packet, out ReadOnlySpan<byte> address) =>
        TryGetAddress(packet, 12, 8, out address);

    /// <summary>The destination address bytes (4 or 16).</summary>
    public static bool TryGetDestination(ReadOnlySpan<byte> packet, out ReadOnlySpan<byte> address) =>
        TryGetAddress(packet, 16, 24, out address);

    private static bool TryGetAddress(ReadOnlySpan<byte> packet, int v4Offset, int v6Offset, out ReadOnlySpan<byte> address)
    {
        switch (Version(packet))
        {
            case 4 when packet.Length >= IPv4HeaderSize:
                address = packet.Slice(v4Offset, 4);
                return true;
            case 6 when packet.Length >= IPv6HeaderSize:
                address = packet.Slice(v6Offset, 16);
                return true;
            default:
                address = default;
                return false;
        }
    }
}
