using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>recvmsg(2): receives one datagram with its flags and control data.</summary>
    [LibraryImport(LibraryName, EntryPoint = "recvmsg", SetLastError = true)]
    public static partial nint RecvMsg(SafeHandle socket, MsgHdr* message, int flags);
}
