using System.Runtime.CompilerServices;
using Salvo.Interop.Linux;
using static Salvo.Interop.Linux.BpfConstants;
using static Salvo.Interop.Linux.NetlinkConstants;
using static Salvo.Interop.Linux.XskConstants;

namespace Salvo.Tests.Interop;

/// <summary>
/// The bpf(2), AF_XDP and rtnetlink layouts and constants match the values read off this machine's
/// linux/bpf.h, linux/if_xdp.h, linux/if_link.h, linux/rtnetlink.h and linux/neighbour.h (x86-64, kernel 6.18
/// headers from linux-libc-dev) with sizeof, offsetof and printf.
/// </summary>
public sealed class XdpAbiTests
{
    [Fact]
    public unsafe void BpfAttrMembers_MatchTheKernelHeader()
    {
        Assert.Equal(8, sizeof(Salvo.Pal.BpfInstruction));

        BpfMapCreateAttr map = default;
        var m = (byte*)&map;
        Assert.Equal(12, (byte*)&map.MaxEntries - m);
        Assert.Equal(16, (byte*)&map.MapFlags - m);
        Assert.Equal(28, map.MapName - m);

        BpfMapElemAttr element = default;
        var e = (byte*)&element;
        Assert.Equal(8, (byte*)&element.Key - e);
        Assert.Equal(16, (byte*)&element.Value - e);
        Assert.Equal(24, (byte*)&element.Flags - e);
        Assert.Equal(32, sizeof(BpfMapElemAttr));

        BpfProgLoadAttr load = default;
        var l = (byte*)&load;
        Assert.Equal(8, (byte*)&load.Insns - l);
        Assert.Equal(16, (byte*)&load.License - l);
        Assert.Equal(24, (byte*)&load.LogLevel - l);
        Assert.Equal(28, (byte*)&load.LogSize - l);
        Assert.Equal(32, (byte*)&load.LogBuffer - l);
        Assert.Equal(44, (byte*)&load.ProgFlags - l);
        Assert.Equal(48, load.ProgName - l);
        Assert.Equal(64, (byte*)&load.ProgIfIndex - l);
        Assert.Equal(68, (byte*)&load.ExpectedAttachType - l);

        BpfLinkCreateAttr link = default;
        var k = (byte*)&link;
        Assert.Equal(4, (byte*)&link.TargetIfIndex - k);
        Assert.Equal(8, (byte*)&link.AttachType - k);
        Assert.Equal(12, (byte*)&link.Flags - k);

        BpfTestRunAttr run = default;
        var r = (byte*)&run;
        Assert.Equal(4, (byte*)&run.ReturnValue - r);
        Assert.Equal(8, (byte*)&run.DataSizeIn - r);
        Assert.Equal(16, (byte*)&run.DataIn - r);
        Assert.Equal(32, (byte*)&run.Repeat - r);

        // Every member fits the union (sizeof(union bpf_attr) is 144 on 6.18).
        Assert.All(new[] { sizeof(BpfMapCreateAttr), sizeof(BpfMapElemAttr), sizeof(BpfProgLoadAttr), sizeof(BpfLinkCreateAttr), sizeof(BpfTestRunAttr) }, size => Assert.True(size <= 144));
    }

    [Fact]
    public void BpfConstants_MatchTheKernelHeader()
    {
        Assert.Equal(321, SYS_bpf_x64);
        Assert.Equal(0, BPF_MAP_CREATE);
        Assert.Equal(2, BPF_MAP_UPDATE_ELEM);
        Assert.Equal(5, BPF_PROG_LOAD);
        Assert.Equal(10, BPF_PROG_TEST_RUN);
        Assert.Equal(28, BPF_LINK_CREATE);
        Assert.Equal(6u, BPF_PROG_TYPE_XDP);
        Assert.Equal(17u, BPF_MAP_TYPE_XSKMAP);
        Assert.Equal(37u, BPF_XDP);
        Assert.Equal(1, BPF_PSEUDO_MAP_FD);
        Assert.Equal(51, BPF_FUNC_redirect_map);
        Assert.Equal((0, 1, 2, 4), (XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_REDIRECT));
        Assert.Equal((1u, 2u, 4u), (XDP_FLAGS_UPDATE_IF_NOEXIST, XDP_FLAGS_SKB_MODE, XDP_FLAGS_DRV_MODE));
        Assert.Equal((0, 4, 16), (XdpMdData, XdpMdDataEnd, XdpMdRxQueueIndex));
        Assert.Equal((0, 1, 4, 5, 6, 7), (BPF_LD, BPF_LDX, BPF_ALU, BPF_JMP, BPF_JMP32, BPF_ALU64));
        Assert.Equal((0, 8, 16, 24, 0, 96, 0, 8), (BPF_W, BPF_H, BPF_B, BPF_DW, BPF_IMM, BPF_MEM, BPF_K, BPF_X));
        Assert.Equal((0, 80, 96, 176), (BPF_ADD, BPF_AND, BPF_LSH, BPF_MOV));
        Assert.Equal((0, 16, 32, 80, 160, 128, 144), (BPF_JA, BPF_JEQ, BPF_JGT, BPF_JNE, BPF_JLT, BPF_CALL, BPF_EXIT));
    }

    [Fact]
    public unsafe void XskStructs_MatchTheKernelHeader()
    {
        Assert.Equal(16, Unsafe.SizeOf<SockaddrXdp>());
        Assert.Equal(32, Unsafe.SizeOf<XdpRingOffset>());
        Assert.Equal(128, Unsafe.SizeOf<XdpMmapOffsets>());
        Assert.Equal(32, Unsafe.SizeOf<XdpUmemReg>());
        Assert.Equal(16, Unsafe.SizeOf<XdpDesc>());
        Assert.Equal(48, Unsafe.SizeOf<XdpStatistics>());

        SockaddrXdp address = default;
        var a = (byte*)&address;
        Assert.Equal(2, (byte*)&address.Flags - a);
        Assert.Equal(4, (byte*)&address.IfIndex - a);
        Assert.Equal(8, (byte*)&address.QueueId - a);
        Assert.Equal(12, (byte*)&address.SharedUmemFd - a);

        XdpMmapOffsets offsets = default;
        var o = (byte*)&offsets;
        Assert.Equal(32, (byte*)&offsets.Tx - o);
        Assert.Equal(64, (byte*)&offsets.Fill - o);
        Assert.Equal(96, (byte*)&offsets.Completion - o);
        Assert.Equal(24, (byte*)&offsets.Rx.Flags - o);

        XdpUmemReg registration = default;
        var u = (byte*)&registration;
        Assert.Equal(16, (byte*)&registration.ChunkSize - u);
        Assert.Equal(20, (byte*)&registration.Headroom - u);
        Assert.Equal(24, (byte*)&registration.Flags - u);

        XdpDesc descriptor = default;
        Assert.Equal(8, (byte*)&descriptor.Length - (byte*)&descriptor);
        Assert.Equal(12, (byte*)&descriptor.Options - (byte*)&descriptor);
    }

    [Fact]
    public void XskConstants_MatchTheKernelHeader()
    {
        Assert.Equal((44, 283), (AF_XDP, SOL_XDP));
        Assert.Equal((1, 2, 3, 4, 5, 6, 7, 8), (XDP_MMAP_OFFSETS, XDP_RX_RING, XDP_TX_RING, XDP_UMEM_REG, XDP_UMEM_FILL_RING, XDP_UMEM_COMPLETION_RING, XDP_STATISTICS, XDP_OPTIONS));
        Assert.Equal((1, 2, 4, 8), (XDP_SHARED_UMEM, XDP_COPY, XDP_ZEROCOPY, XDP_USE_NEED_WAKEUP));
        Assert.Equal((1u, 1u), (XDP_RING_NEED_WAKEUP, XDP_OPTIONS_ZEROCOPY));
        Assert.Equal((0L, 0x80000000L, 0x100000000L, 0x180000000L), (XDP_PGOFF_RX_RING, XDP_PGOFF_TX_RING, XDP_UMEM_PGOFF_FILL_RING, XDP_UMEM_PGOFF_COMPLETION_RING));
        Assert.Equal((69, 70), (SO_PREFER_BUSY_POLL, SO_BUSY_POLL_BUDGET));
    }

    [Fact]
    public unsafe void NetlinkStructs_MatchTheKernelHeader()
    {
        Assert.Equal(16, Unsafe.SizeOf<NlMsgHdr>());
        Assert.Equal(16, Unsafe.SizeOf<IfInfoMsg>());
        Assert.Equal(8, Unsafe.SizeOf<IfAddrMsg>());
        Assert.Equal(12, Unsafe.SizeOf<RtMsg>());
        Assert.Equal(12, Unsafe.SizeOf<NdMsg>());
        Assert.Equal(4, Unsafe.SizeOf<RtAttr>());

        IfInfoMsg link = default;
        Assert.Equal(4, (byte*)&link.Index - (byte*)&link);
        Assert.Equal(8, (byte*)&link.Flags - (byte*)&link);
        IfAddrMsg address = default;
        Assert.Equal(4, (byte*)&address.Index - (byte*)&address);
        RtMsg route = default;
        Assert.Equal(4, (byte*)&route.Table - (byte*)&route);
        Assert.Equal(8, (byte*)&route.Flags - (byte*)&route);
        NdMsg neighbour = default;
        Assert.Equal(4, (byte*)&neighbour.IfIndex - (byte*)&neighbour);
        Assert.Equal(8, (byte*)&neighbour.State - (byte*)&neighbour);
        Assert.Equal(10, (byte*)&neighbour.Flags - (byte*)&neighbour);
        Assert.Equal(11, (byte*)&neighbour.Type - (byte*)&neighbour);
    }

    [Fact]
    public void NetlinkConstants_MatchTheKernelHeaders()
    {
        Assert.Equal((16, 3, 0x80000, 0), (AF_NETLINK, SOCK_RAW, SOCK_CLOEXEC, NETLINK_ROUTE));
        Assert.Equal((2, 3), (NLMSG_ERROR, NLMSG_DONE));
        Assert.Equal((16, 18, 20, 22, 24, 26, 28, 30), (RTM_NEWLINK, RTM_GETLINK, RTM_NEWADDR, RTM_GETADDR, RTM_NEWROUTE, RTM_GETROUTE, RTM_NEWNEIGH, RTM_GETNEIGH));
        Assert.Equal((1, 2, 0x300), (NLM_F_REQUEST, NLM_F_MULTI, NLM_F_DUMP));
        Assert.Equal((1, 3, 4, 32, 43), (IFLA_ADDRESS, IFLA_IFNAME, IFLA_MTU, IFLA_NUM_RX_QUEUES, IFLA_XDP));
        Assert.Equal((2, 4), (IFLA_XDP_ATTACHED, IFLA_XDP_PROG_ID));
        Assert.Equal((0, 1, 2, 3, 4), (XDP_ATTACHED_NONE, XDP_ATTACHED_DRV, XDP_ATTACHED_SKB, XDP_ATTACHED_HW, XDP_ATTACHED_MULTI));
        Assert.Equal((1, 2), (IFA_ADDRESS, IFA_LOCAL));
        Assert.Equal((1, 4, 5, 7), (RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PREFSRC));
        Assert.Equal((1, 2), (NDA_DST, NDA_LLADDR));
        Assert.Equal((1, 2, 4, 8, 16, 32, 64, 128), (NUD_INCOMPLETE, NUD_REACHABLE, NUD_STALE, NUD_DELAY, NUD_PROBE, NUD_FAILED, NUD_NOARP, NUD_PERMANENT));
        Assert.Equal(17, (int)Errno.EEXIST);
    }
}
