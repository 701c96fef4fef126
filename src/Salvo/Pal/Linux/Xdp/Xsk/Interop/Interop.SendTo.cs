using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the buffer and address it passes are valid for the lengths given.
internal static unsafe partial class Libc
{
    /// <summary>sendto(2); on an AF_XDP socket an empty one is the kick that makes the kernel send the TX ring.</summary>
    [LibraryImport(LibraryName, EntryPoint = "sendto", SetLastError = true)]
    public static partial nint SendTo(SafeHandle socket, void* buffer, nuint length, int flags, void* address, uint addressLength);
}
