using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the address it passes is valid for the length given.
internal static unsafe partial class Libc
{
    /// <summary>bind(2) with a raw address (an AF_XDP socket's <c>sockaddr_xdp</c>).</summary>
    [LibraryImport(LibraryName, EntryPoint = "bind", SetLastError = true)]
    public static partial int Bind(SafeHandle socket, void* address, uint length);
}
