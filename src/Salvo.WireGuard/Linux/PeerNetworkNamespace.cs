using System.Net.Sockets;

namespace Salvo.WireGuard.Linux;

/// <summary>
/// Which network namespace the process at the other end of a connected Unix socket runs in: SO_PEERCRED gives its
/// pid (socket(7)), and /proc/PID/ns/net names its namespace as "net:[INODE]" (namespaces(7)); two processes share a
/// namespace exactly when the names are equal. The socket files under /var/run/wireguard are shared by every network
/// namespace of the host, so a tunnel's name alone does not say whose it is.
/// </summary>
internal static class PeerNetworkNamespace
{
    // <asm-generic/socket.h>: SOL_SOCKET 1, SO_PEERCRED 17; struct ucred is pid, uid, gid, 4 bytes each, host order.
    private const int SolSocket = 1;
    private const int SoPeerCred = 17;
    private const int UcredSize = 12;

    /// <summary>This process's network namespace, as "net:[INODE]"; null when /proc cannot say.</summary>
    public static string? Own() => Of("self");

    /// <summary>The pid of the process that listens at the other end of <paramref name="socket"/>; null when the kernel does not say.</summary>
    public static int? PeerProcess(Socket socket)
    {
        Span<byte> credentials = stackalloc byte[UcredSize];
        try
        {
            var length = socket.GetRawSocketOption(SolSocket, SoPeerCred, credentials);
            var pid = length >= 4 ? System.Runtime.InteropServices.MemoryMarshal.Read<int>(credentials) : 0;
            return pid > 0 ? pid : null;
        }
        catch (SocketException)
        {
            return null;
        }
    }

    /// <summary>The network namespace of <paramref name="pid"/> ("self" for this process); null when it is gone or hidden.</summary>
    public static string? Of(string pid)
    {
        try
        {
            return new FileInfo($"/proc/{pid}/ns/net").LinkTarget;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
