using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static unsafe partial class Libc
{
    /// <summary>recvmsg(2): receives one datagram with its flags and control data.</summary>
    [LibraryImport(LibraryName, EntryPoint = "recvmsg", SetLastError = true)]
    public static partial nint RecvMsg(SafeHandle socket, MsgHdr* message, int flags);
}
