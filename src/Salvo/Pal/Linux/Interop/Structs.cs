using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Layouts for x86-64 and arm64 glibc; sizes and offsets are asserted in LinuxAbiTests.

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

/// <summary><c>struct timeval</c>: 16 bytes (64-bit time_t), the value of SO_RCVTIMEO.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct TimeVal
{
    public long Seconds;
    public long Microseconds;
}
