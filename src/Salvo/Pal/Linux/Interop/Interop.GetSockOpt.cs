using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static unsafe partial class Libc
{
    /// <summary>getsockopt(2).</summary>
    [LibraryImport(LibraryName, EntryPoint = "getsockopt", SetLastError = true)]
    public static partial int GetSockOpt(SafeHandle socket, int level, int name, void* value, uint* length);
}
