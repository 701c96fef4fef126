using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Interop.Linux;

internal static partial class Interop
{
    /// <summary>O_RDWR | O_NONBLOCK | O_CLOEXEC (asm-generic/fcntl.h: 02, 04000, 02000000).</summary>
    public const int OpenReadWriteNonBlockingCloseOnExec = 0x2 | 0x800 | 0x80000;

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Open(string path, int flags);
}
