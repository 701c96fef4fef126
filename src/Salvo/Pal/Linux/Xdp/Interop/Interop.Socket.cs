using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>socket(2): opens a descriptor of a family the runtime's Socket does not know (AF_XDP).</summary>
    [LibraryImport(LibraryName, EntryPoint = "socket", SetLastError = true)]
    public static partial int Socket(int domain, int type, int protocol);
}
