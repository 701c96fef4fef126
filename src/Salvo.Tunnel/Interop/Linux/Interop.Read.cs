using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static partial class Interop
{
    [LibraryImport("libc", EntryPoint = "read", SetLastError = true)]
    public static unsafe partial nint Read(int fd, byte* buffer, nuint count);
}
