using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Interop.Linux;

internal static partial class Interop
{
    [LibraryImport("libc", EntryPoint = "write", SetLastError = true)]
    public static unsafe partial nint Write(int fd, byte* buffer, nuint count);
}
