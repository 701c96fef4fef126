using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Interop.Linux;

internal static partial class Interop
{
    [LibraryImport("libc", EntryPoint = "read", SetLastError = true)]
    public static unsafe partial nint Read(int fd, byte* buffer, nuint count);
}
