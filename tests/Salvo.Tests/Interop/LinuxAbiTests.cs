using System.Runtime.CompilerServices;
using Salvo.Interop.Linux;

namespace Salvo.Tests.Interop;

/// <summary>The blittable structs match the sizes and offsets read off the kernel headers (x86-64 glibc).</summary>
public sealed class LinuxAbiTests
{
    [Fact]
    public void StructSizes_MatchTheCHeaders()
    {
        Assert.Equal(16, Unsafe.SizeOf<IOVec>());
        Assert.Equal(56, Unsafe.SizeOf<MsgHdr>());
        Assert.Equal(64, Unsafe.SizeOf<MMsgHdr>());
        Assert.Equal(16, Unsafe.SizeOf<CMsgHdr>());
        Assert.Equal(8, Unsafe.SizeOf<PollFd>());
        Assert.Equal(40, Unsafe.SizeOf<IfReq>());
    }

    [Fact]
    public unsafe void FieldOffsets_MatchTheCHeaders()
    {
        MMsgHdr message = default;
        var start = (byte*)&message;
        Assert.Equal(0, (byte*)&message.Header.Name - start);
        Assert.Equal(8, (byte*)&message.Header.NameLength - start);
        Assert.Equal(16, (byte*)&message.Header.IOVecs - start);
        Assert.Equal(24, (byte*)&message.Header.IOVecCount - start);
        Assert.Equal(32, (byte*)&message.Header.Control - start);
        Assert.Equal(40, (byte*)&message.Header.ControlLength - start);
        Assert.Equal(48, (byte*)&message.Header.Flags - start);
        Assert.Equal(56, (byte*)&message.Length - start);

        CMsgHdr control = default;
        var controlStart = (byte*)&control;
        Assert.Equal(8, (byte*)&control.Level - controlStart);
        Assert.Equal(12, (byte*)&control.Type - controlStart);

        IfReq request = default;
        var requestStart = (byte*)&request;
        Assert.Equal(16, (byte*)&request.Flags - requestStart);
    }

    [Fact]
    public void Constants_MatchTheKernelHeaders()
    {
        Assert.Equal(103, Constants.UDP_SEGMENT);
        Assert.Equal(104, Constants.UDP_GRO);
        Assert.Equal(15, Constants.SO_REUSEPORT);
        Assert.Equal(24, Constants.IP_BIND_ADDRESS_NO_PORT);
        Assert.Equal(46, Constants.SO_BUSY_POLL);
        Assert.Equal(32, Constants.MSG_TRUNC);
        Assert.Equal(8, Constants.MSG_CTRUNC);
        Assert.Equal(64, Constants.MSG_DONTWAIT);
        Assert.Equal(8, Constants.IP_PKTINFO);
        Assert.Equal(49, Constants.IPV6_RECVPKTINFO);
        Assert.Equal(50, Constants.IPV6_PKTINFO);
        Assert.Equal(111, (int)Errno.ECONNREFUSED);
        Assert.Equal(90, (int)Errno.EMSGSIZE);
        Assert.Equal(11, (int)Errno.EAGAIN);
        Assert.Equal(2, (int)Errno.ENOENT);
        Assert.Equal(19, (int)Errno.ENODEV);
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
        Assert.Equal(0x2, Constants.O_RDWR);
        Assert.Equal(0x800, Constants.O_NONBLOCK);
        Assert.Equal(0x80000, Constants.O_CLOEXEC);
    }
}
