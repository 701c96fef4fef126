using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>SIOCGSKNS: returns a descriptor for the network namespace a socket lives in.</summary>
    public const int SIOCGSKNS = 0x894C;

    /// <summary>ioctl(2) with no argument.</summary>
    [LibraryImport(LibraryName, EntryPoint = "ioctl", SetLastError = true)]
    public static partial int Ioctl(SafeHandle socket, nuint request);
}
