using System.Buffers.Binary;

namespace Salvo.Pal;

/// <summary>
/// The body of <c>sockaddr_in</c> and <c>sockaddr_in6</c> after the family field: port and address sit at the same
/// offsets on Linux, Windows and the BSDs (only the first two bytes, family or length and family, differ), so this
/// serves <see cref="System.Net.SocketAddress"/> buffers and raw kernel structures alike.
/// </summary>
internal static class SockaddrCodec
{
    public const int IPv4Length = 16;
    public const int IPv6Length = 28;

    /// <summary>Bytes up to the end of the IPv4 address (family, port, address).</summary>
    public const int IPv4MinimumLength = 8;

    public static DatagramAddress ReadIPv4(ReadOnlySpan<byte> sockaddr) =>
        DatagramAddress.FromIPv4Bytes(sockaddr.Slice(4, 4), BinaryPrimitives.ReadUInt16BigEndian(sockaddr[2..]));

    public static DatagramAddress ReadIPv6(ReadOnlySpan<byte> sockaddr) =>
        DatagramAddress.FromIPv6Bytes(sockaddr.Slice(8, 16), BinaryPrimitives.ReadUInt16BigEndian(sockaddr[2..]), BitConverter.ToUInt32(sockaddr[24..]));

    public static void WriteIPv4Body(DatagramAddress address, Span<byte> sockaddr)
    {
        BinaryPrimitives.WriteUInt16BigEndian(sockaddr[2..], (ushort)address.Port);
        address.WriteAddressBytes(sockaddr.Slice(4, 4));
    }

    public static void WriteIPv6Body(DatagramAddress address, Span<byte> sockaddr)
    {
        BinaryPrimitives.WriteUInt16BigEndian(sockaddr[2..], (ushort)address.Port);
        address.WriteAddressBytes(sockaddr.Slice(8, 16));
        BitConverter.TryWriteBytes(sockaddr[24..], (uint)address.ScopeId);
    }
}
