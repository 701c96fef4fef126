using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Tunnel.Paths;

/// <summary>
/// Names a TCP connection as a <see cref="DatagramAddress"/>, so the engine's roaming rule (send to where the last
/// authenticated message came from) covers both paths: the address is [100::ID]:0, in the discard-only prefix
/// 100::/64 (RFC 6666) with port 0, which no UDP datagram can come from or be sent to.
/// </summary>
internal static class TcpPathAddress
{
    private const ulong DiscardPrefix = 0x0100_0000_0000_0000;

    public static DatagramAddress Create(long id)
    {
        Span<byte> bytes = stackalloc byte[16];
        BinaryPrimitives.WriteUInt64BigEndian(bytes, DiscardPrefix);
        BinaryPrimitives.WriteInt64BigEndian(bytes[8..], id);
        return DatagramAddress.Create(new IPAddress(bytes), 0);
    }

    /// <summary>"TCP connection 3" for a connection's name, the address itself otherwise: for log lines.</summary>
    public static string Describe(DatagramAddress address)
    {
        if (!IsTcp(address))
        {
            return address.ToString();
        }

        Span<byte> bytes = stackalloc byte[16];
        address.WriteAddressBytes(bytes);
        return string.Create(System.Globalization.CultureInfo.InvariantCulture, $"TCP connection {BinaryPrimitives.ReadInt64BigEndian(bytes[8..])}");
    }

    /// <summary>Whether <paramref name="address"/> names a TCP connection; the port test alone settles every UDP address.</summary>
    public static bool IsTcp(DatagramAddress address) => address.Port == 0 && IsDiscardPrefix(address);

    private static bool IsDiscardPrefix(DatagramAddress address)
    {
        if (address.Family != AddressFamily.InterNetworkV6)
        {
            return false;
        }

        Span<byte> bytes = stackalloc byte[16];
        address.WriteAddressBytes(bytes);
        return BinaryPrimitives.ReadUInt64BigEndian(bytes) == DiscardPrefix;
    }
}
