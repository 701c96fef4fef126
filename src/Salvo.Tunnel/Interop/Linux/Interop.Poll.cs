using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static partial class Interop
{
    /// <summary>POLLIN (asm-generic/poll.h).</summary>
    public const short PollIn = 0x1;

    [LibraryImport("libc", EntryPoint = "poll", SetLastError = true)]
    public static unsafe partial int Poll(PollFd* fds, nuint count, int timeoutMilliseconds);

    /// <summary>struct pollfd: int fd, short events, short revents (8 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct PollFd
    {
        public int Fd;
        public short Events;
        public short ReturnedEvents;
    }
}
