using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointer it passes is valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>ioctl(2); <paramref name="argument"/> is what the request reads or writes, null for requests that take none.</summary>
    [LibraryImport(LibraryName, EntryPoint = "ioctl", SetLastError = true)]
    public static partial int Ioctl(SafeHandle descriptor, nuint request, void* argument);
}
