using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>close(2).</summary>
    [LibraryImport(LibraryName, EntryPoint = "close", SetLastError = true)]
    public static partial int Close(int fd);
}
