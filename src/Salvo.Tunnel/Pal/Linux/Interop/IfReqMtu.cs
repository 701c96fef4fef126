using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// x86-64 and arm64 glibc; the size and the offset of the MTU are asserted in TunAbiTests.

/// <summary>
/// <c>struct ifreq</c> as SIOCGIFMTU and SIOCSIFMTU read and write it: the interface name, then <c>ifr_mtu</c> (an
/// int) at offset 16, the first member of the 24-byte union: 40 bytes.
/// </summary>
[StructLayout(LayoutKind.Sequential, Size = 40)]
internal struct IfReqMtu
{
    public InterfaceName Name;
    public int Mtu;
}
