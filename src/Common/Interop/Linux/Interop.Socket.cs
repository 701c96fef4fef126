using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>socket(2): for the families the runtime's Socket does not open (AF_NETLINK, AF_XDP).</summary>
    [LibraryImport(LibraryName, EntryPoint = "socket", SetLastError = true)]
    public static partial int Socket(int domain, int type, int protocol);
}
