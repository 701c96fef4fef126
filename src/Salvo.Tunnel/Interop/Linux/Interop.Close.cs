using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Interop.Linux;

internal static partial class Interop
{
    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    public static partial int Close(int fd);
}
