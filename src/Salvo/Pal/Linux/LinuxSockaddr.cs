using System.Net.Sockets;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>Linux <c>sockaddr_in</c> and <c>sockaddr_in6</c> as the kernel reads and writes them in <c>msg_name</c>.</summary>
internal static class LinuxSockaddr
{
    /// <summary>Reads a <c>sockaddr_in</c> or <c>sockaddr_in6</c>; <see cref="DatagramAddress.None"/> for any other family.</summary>
    public static DatagramAddress Read(ReadOnlySpan<byte> sockaddr)
    {
        if (sockaddr.Length < 2)
        {
            return DatagramAddress.None;
        }

        var family = BitConverter.ToUInt16(sockaddr);
        if (family == Constants.AF_INET && sockaddr.Length >= SockaddrCodec.IPv4MinimumLength)
        {
            return SockaddrCodec.ReadIPv4(sockaddr);
        }

        if (family == Constants.AF_INET6 && sockaddr.Length >= SockaddrCodec.IPv6Length)
        {
            return SockaddrCodec.ReadIPv6(sockaddr);
        }

        return DatagramAddress.None;
    }

    /// <summary>
    /// Writes a <c>sockaddr_in</c>/<c>sockaddr_in6</c>; an IPv4 address is written IPv4-mapped when
    /// <paramref name="asIPv6"/> (a dual-stack socket). Returns the length, or 0 for <see cref="DatagramAddress.None"/>.
    /// </summary>
    public static int Write(DatagramAddress address, Span<byte> destination, bool asIPv6)
    {
        if (!address.HasValue)
        {
            return 0;
        }

        if (address.Family == AddressFamily.InterNetwork && !asIPv6)
        {
            destination[..SockaddrCodec.IPv4Length].Clear();
            BitConverter.TryWriteBytes(destination, (ushort)Constants.AF_INET);
            SockaddrCodec.WriteIPv4Body(address, destination);
            return SockaddrCodec.IPv4Length;
        }

        destination[..SockaddrCodec.IPv6Length].Clear();
        BitConverter.TryWriteBytes(destination, (ushort)Constants.AF_INET6);
        SockaddrCodec.WriteIPv6Body(address.MapToIPv6(), destination);
        return SockaddrCodec.IPv6Length;
    }
}
