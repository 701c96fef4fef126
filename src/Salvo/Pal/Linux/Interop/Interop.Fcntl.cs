using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>fcntl(2) with a command that takes no argument (F_GETFL): the result, or -1 with errno set.</summary>
    [LibraryImport(LibraryName, EntryPoint = "fcntl", SetLastError = true)]
    public static partial int Fcntl(SafeHandle descriptor, int command);
}
