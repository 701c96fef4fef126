using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    public const int CLONE_NEWNET = 0x40000000;

    /// <summary>SIOCGSKNS, an ioctl(2) request: returns a descriptor for the network namespace a socket lives in.</summary>
    public const int SIOCGSKNS = 0x894C;

    /// <summary>setns(2): moves the calling thread into a namespace.</summary>
    [LibraryImport(LibraryName, EntryPoint = "setns", SetLastError = true)]
    public static partial int SetNs(int fd, int nstype);
}
