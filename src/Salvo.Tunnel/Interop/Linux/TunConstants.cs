namespace Salvo.Tunnel.Interop.Linux;

/// <summary>Values from linux/if_tun.h and linux/if.h, checked on kernel 6.18 (shared LINUX-FACTS.md).</summary>
internal static class TunConstants
{
    /// <summary>_IOW('T', 202, int).</summary>
    public const nuint TunSetInterface = 0x400454ca;

    public const short InterfaceTun = 0x0001;

    /// <summary>No 4-byte packet-information prefix: reads and writes are bare IP packets.</summary>
    public const short InterfaceNoPacketInfo = 0x1000;

    /// <summary>IFNAMSIZ: 16 bytes including the terminating zero.</summary>
    public const int InterfaceNameSize = 16;

    /// <summary>sizeof(struct ifreq) on 64-bit Linux: the 16-byte name and a 24-byte union.</summary>
    public const int InterfaceRequestSize = 40;

    public const int ErrorAgain = 11;
    public const int ErrorInterrupted = 4;
}
