using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: a declaration; each caller says why the buffer it passes is valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>send(2): a netlink request, one or many messages in one buffer.</summary>
    [LibraryImport(LibraryName, EntryPoint = "send", SetLastError = true)]
    public static partial nint Send(SafeHandle socket, byte* buffer, nuint length, int flags);
}
