using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>getsockopt(2).</summary>
    [LibraryImport(LibraryName, EntryPoint = "getsockopt", SetLastError = true)]
    public static partial int GetSockOpt(SafeHandle socket, int level, int name, void* value, uint* length);
}
