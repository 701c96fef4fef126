using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Salvo.Interop.Linux;

namespace Salvo.Tunnel.Tests.Interop;

/// <summary>
/// The tunnel's own interop matches the kernel and OpenSSL headers (x86-64 glibc): the TUN device's ifreq, flags and
/// ioctl numbers, the open(2) flags, the errno values the device acts on, OpenSSL's parameter struct, and the shared
/// structs as compiled into this assembly.
/// </summary>
public sealed class TunAbiTests
{
    [Fact]
    public void StructSizes_MatchTheCHeaders()
    {
        Assert.Equal(40, Unsafe.SizeOf<IfReq>());
        Assert.Equal(40, Unsafe.SizeOf<IfReqMtu>());
        Assert.Equal(16, Unsafe.SizeOf<IOVec>());
        Assert.Equal(8, Unsafe.SizeOf<PollFd>());
    }

    [Fact]
    public void IfReqFlags_SitAtOffset16()
    {
        IfReq request = default;

        var offset = Unsafe.ByteOffset(ref Unsafe.As<IfReq, byte>(ref request), ref Unsafe.As<short, byte>(ref request.Flags));

        Assert.Equal(16, (int)offset);
    }

    [Fact]
    public void IfReqMtu_SitsAtOffset16()
    {
        IfReqMtu request = default;

        var offset = Unsafe.ByteOffset(ref Unsafe.As<IfReqMtu, byte>(ref request), ref Unsafe.As<int, byte>(ref request.Mtu));

        Assert.Equal(16, (int)offset);
    }

    [Fact]
    public void TunConstants_MatchTheKernelHeaders()
    {
        // include/uapi/linux/if_tun.h, include/uapi/linux/if.h, include/uapi/asm-generic/fcntl.h (octal 02, 04000, 02000000).
        Assert.Equal((nuint)0x400454ca, Constants.TUNSETIFF);
        Assert.Equal(0x0001, Constants.IFF_TUN);
        Assert.Equal(0x1000, Constants.IFF_NO_PI);
        Assert.Equal(0x4000, Constants.IFF_VNET_HDR);
        Assert.Equal((nuint)0x400454d0, Constants.TUNSETOFFLOAD);
        Assert.Equal(0x01u, Constants.TUN_F_CSUM);
        Assert.Equal(0x02u, Constants.TUN_F_TSO4);
        Assert.Equal(0x04u, Constants.TUN_F_TSO6);
        Assert.Equal(0x20u, Constants.TUN_F_USO4);
        Assert.Equal(0x40u, Constants.TUN_F_USO6);
        Assert.Equal(16, Constants.IFNAMSIZ);
        Assert.Equal((nuint)0x8921, Constants.SIOCGIFMTU); // include/uapi/linux/sockios.h
        Assert.Equal((nuint)0x8922, Constants.SIOCSIFMTU);
        Assert.Equal(0x2, Constants.O_RDWR);
        Assert.Equal(0x800, Constants.O_NONBLOCK);
        Assert.Equal(0x80000, Constants.O_CLOEXEC);
        Assert.Equal(0x001, Constants.POLLIN);
    }

    [Fact]
    public void ErrnoTheDeviceActsOn_MatchesTheKernelHeaders()
    {
        // include/uapi/asm-generic/errno-base.h.
        Assert.Equal(1, (int)Errno.EPERM);
        Assert.Equal(2, (int)Errno.ENOENT);
        Assert.Equal(4, (int)Errno.EINTR);
        Assert.Equal(11, (int)Errno.EAGAIN);
        Assert.Equal(13, (int)Errno.EACCES);
        Assert.Equal(19, (int)Errno.ENODEV);
    }

    [Fact]
    public void OsslParam_MatchesOpenSslsHeader()
    {
        // include/openssl/core.h: struct ossl_param_st on LP64 (key, data_type padded to 8, data, data_size,
        // return_size) and OSSL_PARAM_OCTET_STRING.
        Assert.Equal(40, Marshal.SizeOf<OsslParam>());
        Assert.Equal(0, (int)Marshal.OffsetOf<OsslParam>(nameof(OsslParam.Key)));
        Assert.Equal(8, (int)Marshal.OffsetOf<OsslParam>(nameof(OsslParam.DataType)));
        Assert.Equal(16, (int)Marshal.OffsetOf<OsslParam>(nameof(OsslParam.Data)));
        Assert.Equal(24, (int)Marshal.OffsetOf<OsslParam>(nameof(OsslParam.DataSize)));
        Assert.Equal(32, (int)Marshal.OffsetOf<OsslParam>(nameof(OsslParam.ReturnSize)));
        Assert.Equal(5u, Libcrypto.OSSL_PARAM_OCTET_STRING);
    }
}
