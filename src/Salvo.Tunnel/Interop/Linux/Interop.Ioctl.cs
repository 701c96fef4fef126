using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Interop.Linux;

internal static partial class Interop
{
    [LibraryImport("libc", EntryPoint = "ioctl", SetLastError = true)]
    public static unsafe partial int Ioctl(int fd, nuint request, void* argument);
}
