using System.Net;
using System.Net.Sockets;

namespace Salvo.Perf.Cli;

/// <summary>The TCP listening sockets the commands open, so that every one treats <c>::</c> alike.</summary>
internal static class TcpListeners
{
    /// <summary>
    /// A TCP socket for <paramref name="endPoint"/>, not yet bound. On <c>::</c> it is dual-stack: the help
    /// promises that <c>::</c> listens everywhere, and an IPv6 socket is IPv6-only unless IPV6_V6ONLY is
    /// cleared (ipv6(7)); the runtime sets IPV6_V6ONLY on every IPv6 socket it creates.
    /// </summary>
    public static Socket Create(IPEndPoint endPoint)
    {
        var socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        if (endPoint.Address.Equals(IPAddress.IPv6Any))
        {
            socket.DualMode = true;
        }

        return socket;
    }
}
