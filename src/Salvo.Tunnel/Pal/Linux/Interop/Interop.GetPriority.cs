using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>getpriority(2): the nice value (-20 to 19), or -1 with errno set; errno tells the two -1s apart.</summary>
    [LibraryImport(LibraryName, EntryPoint = "getpriority", SetLastError = true)]
    public static partial int GetPriority(int which, uint who);
}
