using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>
    /// shutdown(2). On an unconnected UDP socket it returns ENOTCONN but still wakes every thread
    /// blocked in poll on it (net/ipv4/af_inet.c, inet_shutdown), which is why dispose calls it.
    /// </summary>
    [LibraryImport(LibraryName, EntryPoint = "shutdown", SetLastError = true)]
    public static partial int Shutdown(SafeHandle socket, int how);
}
