using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Layouts for x86-64 and arm64 glibc; sizes and offsets are asserted in LinuxAbiTests.

// Safety: plain data in the kernel's layout; whoever stores a pointer here keeps its target alive and pinned
// until the system call that reads it returns.
/// <summary><c>struct iovec</c>: 16 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct IOVec
{
    public void* Base;
    public nuint Length;
}

// Safety: as IOVec: the code that fills it keeps every pointed-to buffer pinned for the call, with the length given.
/// <summary><c>struct msghdr</c>: 56 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct MsgHdr
{
    public void* Name;
    public uint NameLength;
    public IOVec* IOVecs;
    public nuint IOVecCount;
    public void* Control;
    public nuint ControlLength;
    public int Flags;
}

/// <summary><c>struct mmsghdr</c>: 64 bytes; <see cref="Length"/> is the byte count the kernel moved.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct MMsgHdr
{
    public MsgHdr Header;
    public uint Length;
}

/// <summary><c>struct cmsghdr</c>: 16 bytes, followed by the data aligned to 8.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct CMsgHdr
{
    public nuint Length;
    public int Level;
    public int Type;
}

/// <summary><c>struct pollfd</c>: 8 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct PollFd
{
    public int Fd;
    public short Events;
    public short ReturnedEvents;
}

/// <summary>
/// <c>struct ifreq</c> as TUNSETIFF reads and writes it: the interface name, then <c>ifr_flags</c> at offset 16, the
/// first member of a 24-byte union: 40 bytes.
/// </summary>
[StructLayout(LayoutKind.Sequential, Size = 40)]
internal struct IfReq
{
    public InterfaceName Name;
    public short Flags;
}

/// <summary><c>ifr_name</c>: IFNAMSIZ bytes, NUL-terminated.</summary>
[InlineArray(Constants.IFNAMSIZ)]
internal struct InterfaceName
{
    private byte _first;
}
