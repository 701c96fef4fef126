using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static unsafe partial class Libc
{
    /// <summary>setsockopt(2).</summary>
    [LibraryImport(LibraryName, EntryPoint = "setsockopt", SetLastError = true)]
    public static partial int SetSockOpt(SafeHandle socket, int level, int name, void* value, uint length);
}
