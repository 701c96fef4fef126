namespace Salvo.Interop.Linux;

/// <summary>The interface MTU requests, from include/uapi/linux/sockios.h; TunAbiTests asserts them.</summary>
internal static partial class Constants
{
    // Asked on any socket of the interface's network namespace (net/core/dev_ioctl.c), not on the TUN descriptor,
    // whose ioctl handles only its own requests and the hardware address (drivers/net/tun.c).
    public const nuint SIOCGIFMTU = 0x8921;
    public const nuint SIOCSIFMTU = 0x8922;
}
