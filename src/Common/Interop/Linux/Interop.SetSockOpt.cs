using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>setsockopt(2).</summary>
    [LibraryImport(LibraryName, EntryPoint = "setsockopt", SetLastError = true)]
    public static partial int SetSockOpt(SafeHandle socket, int level, int name, void* value, uint length);
}
