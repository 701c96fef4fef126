using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static unsafe partial class Libc
{
    /// <summary>setsockopt(2).</summary>
    [LibraryImport(LibraryName, EntryPoint = "setsockopt", SetLastError = true)]
    public static partial int SetSockOpt(int fd, int level, int name, void* value, uint length);
}
