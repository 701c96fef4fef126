using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// x86-64 and arm64 glibc; the size and the offset of the flags are asserted in TunAbiTests.

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
