using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// x86-64 and arm64 glibc; the size is asserted in LinuxAbiTests.

/// <summary><c>struct pollfd</c>: 8 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct PollFd
{
    public int Fd;
    public short Events;
    public short ReturnedEvents;
}
