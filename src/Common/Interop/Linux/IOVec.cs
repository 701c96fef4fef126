using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// x86-64 and arm64 glibc; the size is asserted in LinuxAbiTests.

// Safety: plain data in the kernel's layout; whoever stores a pointer here keeps its target alive and pinned
// until the system call that reads it returns.
/// <summary><c>struct iovec</c>: 16 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct IOVec
{
    public void* Base;
    public nuint Length;
}
