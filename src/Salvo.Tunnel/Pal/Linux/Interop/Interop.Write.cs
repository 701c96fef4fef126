using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>write(2): on a TUN descriptor, one packet per call.</summary>
    [LibraryImport(LibraryName, EntryPoint = "write", SetLastError = true)]
    public static partial nint Write(SafeHandle descriptor, byte* buffer, nuint count);
}
