using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>poll(2): waits for readiness; used by the blocking (dedicated thread) I/O model.</summary>
    [LibraryImport(LibraryName, EntryPoint = "poll", SetLastError = true)]
    public static partial int Poll(PollFd* fds, nuint count, int timeoutMilliseconds);
}
