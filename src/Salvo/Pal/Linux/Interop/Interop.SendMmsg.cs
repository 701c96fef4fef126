using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>sendmmsg(2): sends up to <paramref name="count"/> datagrams in one call.</summary>
    [LibraryImport(LibraryName, EntryPoint = "sendmmsg", SetLastError = true)]
    public static partial int SendMmsg(SafeHandle socket, MMsgHdr* messages, uint count, int flags);
}
