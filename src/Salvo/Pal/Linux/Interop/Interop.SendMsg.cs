using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>sendmsg(2): sends one datagram, optionally with control data (GSO).</summary>
    [LibraryImport(LibraryName, EntryPoint = "sendmsg", SetLastError = true)]
    public static partial nint SendMsg(SafeHandle socket, MsgHdr* message, int flags);
}
