namespace Salvo.Interop.Linux;

/// <summary>
/// What opening a TUN device takes, read off the kernel's uapi headers (named above each group; the device is
/// described in open(2) and Documentation/networking/tuntap.rst). TunAbiTests asserts them.
/// </summary>
internal static partial class Constants
{
    // include/uapi/asm-generic/fcntl.h (octal there: 02, 04000, 02000000)
    public const int O_RDWR = 0x2;
    public const int O_NONBLOCK = 0x800;
    public const int O_CLOEXEC = 0x80000;

    // include/uapi/linux/if_tun.h: TUNSETIFF is _IOW('T', 202, int); IFF_NO_PI drops the 4-byte packet-information
    // prefix, so reads and writes are bare IP packets
    public const nuint TUNSETIFF = 0x400454ca;
    public const short IFF_TUN = 0x0001;
    public const short IFF_NO_PI = 0x1000;

    // include/uapi/linux/if_tun.h: IFF_VNET_HDR puts a 10-byte struct virtio_net_hdr before every packet read and
    // written; TUNSETOFFLOAD (_IOW('T', 208, unsigned int), argument by value) says which offloads this end handles,
    // so the kernel may hand over unchecksummed packets (CSUM) and TCP (TSO4/6) or UDP (USO4/6, kernel 6.2) super-packets
    public const short IFF_VNET_HDR = 0x4000;
    public const nuint TUNSETOFFLOAD = 0x400454d0;
    public const uint TUN_F_CSUM = 0x01;
    public const uint TUN_F_TSO4 = 0x02;
    public const uint TUN_F_TSO6 = 0x04;
    public const uint TUN_F_USO4 = 0x20;
    public const uint TUN_F_USO6 = 0x40;

    // include/uapi/linux/if.h: an interface name's bytes, the terminating NUL included
    public const int IFNAMSIZ = 16;
}
