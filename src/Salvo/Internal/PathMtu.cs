using System.Net.Sockets;
using Salvo.Interop.Linux;
using Salvo.Pal;

namespace Salvo.Internal;

/// <summary>Reads the MTU of the route to a destination: a throwaway socket connected to it (no packet leaves).</summary>
internal static class PathMtu
{
    private const int Unknown = SendBatch.DefaultMaxDatagramSize;

    public static int MaxDatagramSize(DatagramAddress destination)
    {
        if (!OperatingSystem.IsLinux())
        {
            return Unknown;
        }

        var family = destination.Family;
        try
        {
            using var probe = new Socket(family, SocketType.Dgram, ProtocolType.Udp);
            probe.Connect(destination.ToIPEndPoint());
            var (level, name, headers) = family == AddressFamily.InterNetwork
                ? (Constants.IPPROTO_IP, Constants.IP_MTU, 20 + 8)
                : (Constants.IPPROTO_IPV6, Constants.IPV6_MTU, 40 + 8);
            return LinuxSocketOption.TryGet(probe.SafeHandle, level, name, out var mtu) == Errno.None && mtu > headers
                ? Math.Min(mtu - headers, Unknown)
                : Unknown;
        }
        catch (SocketException)
        {
            return Unknown;
        }
    }
}
