using System.Net.Sockets;
using Salvo.Interop.Linux;

namespace Salvo.Internal;

/// <summary>
/// Sets <see cref="DatagramSocketOptions.DontFragment"/> through the runtime's socket options, so every backend
/// sets it the same way; a socket that refuses it fails at open, naming the option.
/// </summary>
internal static class DontFragmentOption
{
    public static void Enable(Socket socket)
    {
        try
        {
            if (OperatingSystem.IsLinux())
            {
                EnableOnLinux(socket);
            }
            else
            {
                EnableElsewhere(socket);
            }
        }
        catch (SocketException e)
        {
            throw new NotSupportedException(
                $"DontFragment: this socket refused don't-fragment ({e.SocketErrorCode}: {e.Message}); leave DontFragment off to allow IP fragments.", e);
        }
    }

    /// <summary>
    /// IP_PMTUDISC_PROBE (include/uapi/linux/in.h; ip(7)): DF set and never fragmented locally, against the route's
    /// MTU rather than a learned one, so a spoofed ICMP "fragmentation needed" cannot shrink it. IPv4 traffic of a
    /// dual-stack socket follows the IPv4 option; IPV6_DONTFRAG (RFC 3542, ipv6(7)) on top for IPv6.
    /// </summary>
    private static void EnableOnLinux(Socket socket)
    {
        var isIPv6 = socket.AddressFamily == AddressFamily.InterNetworkV6;
        if (!isIPv6 || socket.DualMode)
        {
            SetInt(socket, Constants.IPPROTO_IP, Constants.IP_MTU_DISCOVER, Constants.IP_PMTUDISC_PROBE);
        }

        if (isIPv6)
        {
            SetInt(socket, Constants.IPPROTO_IPV6, Constants.IPV6_MTU_DISCOVER, Constants.IP_PMTUDISC_PROBE);
            SetInt(socket, Constants.IPPROTO_IPV6, Constants.IPV6_DONTFRAG, 1);
        }
    }

    /// <summary>The runtime's own mapping: IP_DONTFRAGMENT / IPV6_DONTFRAG on Windows and the BSDs.</summary>
    private static void EnableElsewhere(Socket socket)
    {
        socket.DontFragment = true;
        if (socket.AddressFamily == AddressFamily.InterNetworkV6 && socket.DualMode)
        {
            socket.SetSocketOption(SocketOptionLevel.IP, SocketOptionName.DontFragment, true);
        }
    }

    private static void SetInt(Socket socket, int level, int name, int value) =>
        socket.SetRawSocketOption(level, name, BitConverter.GetBytes(value));
}
