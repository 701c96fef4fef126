using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// Reads the MTU of the route to a destination with a throwaway socket connected to it (connecting a UDP
/// socket sends nothing). The route is looked up in the network namespace of the socket asking, which can
/// differ from the calling thread's (a socket made inside another namespace).
/// </summary>
[SupportedOSPlatform("linux")]
internal static class LinuxPathMtu
{
    private const int Unknown = SendBatch.DefaultMaxDatagramSize;

    public static int MaxDatagramSize(DatagramAddress destination, Socket asking)
    {
        var namespaceFd = NamespaceOf(asking);
        if (namespaceFd < 0)
        {
            return Probe(destination);
        }

        try
        {
            if (SameNamespaceAsThisThread(namespaceFd))
            {
                return Probe(destination);
            }

            var result = Unknown;
            var thread = new Thread(() =>
            {
                // The thread enters the socket's namespace and ends: the namespace goes with it.
                result = Libc.SetNs(namespaceFd, Libc.CLONE_NEWNET) == 0 ? Probe(destination) : Unknown;
            });
            thread.Start();
            thread.Join();
            return result;
        }
        finally
        {
            _ = Libc.Close(namespaceFd);
        }
    }

    private static unsafe int NamespaceOf(Socket socket)
    {
        try
        {
            // Safety: SIOCGSKNS takes no argument (net/socket.c, sock_ioctl), so the null pointer is never read.
            return Libc.Ioctl(socket.SafeHandle, Libc.SIOCGSKNS, null);
        }
        catch (ObjectDisposedException)
        {
            return -1;
        }
    }

    private static bool SameNamespaceAsThisThread(int namespaceFd)
    {
        try
        {
            // Both links read "net:[inode]".
            return File.ResolveLinkTarget($"/proc/self/fd/{namespaceFd}", false)?.Name ==
                   File.ResolveLinkTarget("/proc/thread-self/ns/net", false)?.Name;
        }
        catch (IOException)
        {
            return true;
        }
    }

    private static int Probe(DatagramAddress destination)
    {
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
