using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: a declaration; each caller says why the buffer it passes is valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>recv(2): the netlink replies queued for the socket, as many whole messages as fit.</summary>
    [LibraryImport(LibraryName, EntryPoint = "recv", SetLastError = true)]
    public static partial nint Recv(SafeHandle socket, byte* buffer, nuint length, int flags);
}
