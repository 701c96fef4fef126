using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    public const int CLONE_NEWNET = 0x40000000;

    /// <summary>setns(2): moves the calling thread into a namespace.</summary>
    [LibraryImport(LibraryName, EntryPoint = "setns", SetLastError = true)]
    public static partial int SetNs(int fd, int nstype);
}
