using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the mapping it asks for is used within its length.
internal static unsafe partial class Libc
{
    /// <summary>mmap(2): maps io_uring's and AF_XDP's rings into this process, or anonymous page-aligned memory for an io_uring buffer ring or an AF_XDP UMEM.</summary>
    [LibraryImport(LibraryName, EntryPoint = "mmap", SetLastError = true)]
    public static partial void* Mmap(void* address, nuint length, int protection, int flags, int fd, long offset);
}
