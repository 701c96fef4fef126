using System.Runtime.InteropServices;

namespace Salvo.WireGuard.Linux;

/// <summary>The C library calls of the daemon's own (its status folder and files); the tunnel's are in Salvo.Tunnel's platform layer.</summary>
internal static partial class Libc
{
    private const string Library = "libc.so.6";

    [LibraryImport(Library, EntryPoint = "close", SetLastError = true)]
    public static partial int Close(int fd);
}
