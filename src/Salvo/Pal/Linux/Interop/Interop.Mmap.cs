using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the mapping it asks for is used within its length.
internal static unsafe partial class Libc
{
    /// <summary>mmap(2): maps the io_uring rings into this process, or anonymous page-aligned memory for a buffer ring.</summary>
    [LibraryImport(LibraryName, EntryPoint = "mmap", SetLastError = true)]
    public static partial void* Mmap(void* address, nuint length, int protection, int flags, int fd, long offset);
}
