using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>read(2): on a TUN descriptor, one packet per call.</summary>
    [LibraryImport(LibraryName, EntryPoint = "read", SetLastError = true)]
    public static partial nint Read(SafeHandle descriptor, byte* buffer, nuint count);
}
