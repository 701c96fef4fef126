using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the buffer and address it passes are valid for the lengths given.
internal static unsafe partial class Libc
{
    /// <summary>recvfrom(2); on an AF_XDP socket an empty one wakes the kernel to take the fill ring (need-wakeup).</summary>
    [LibraryImport(LibraryName, EntryPoint = "recvfrom", SetLastError = true)]
    public static partial nint RecvFrom(SafeHandle socket, void* buffer, nuint length, int flags, void* address, uint* addressLength);
}
