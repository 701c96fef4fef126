using System.Buffers.Binary;
using System.Net;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using Salvo.Pal;
using static Salvo.Interop.Linux.BpfConstants;

namespace Salvo.Tests.Xdp;

/// <summary>
/// The program as the kernel runs it: loaded through the verifier, then run on frames with BPF_PROG_TEST_RUN. Built
/// with XDP_DROP as the empty-slot verdict, a matching datagram answers DROP (bpf_redirect_map found no socket) and
/// anything else PASS, so the verdict shows the parse.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class XdpUdpProgramTests
{
    private const int Port = 4242;
    private static readonly MacAddress s_mac = MacAddress.Parse("02:00:00:00:00:01");
    private static readonly DatagramAddress s_v4Source = DatagramAddress.Create(IPAddress.Parse("198.18.0.1"), 999);
    private static readonly DatagramAddress s_v4Bound = DatagramAddress.Create(IPAddress.Parse("198.18.0.2"), Port);
    private static readonly DatagramAddress s_v6Source = DatagramAddress.Create(IPAddress.Parse("2001:db8::1"), 999);
    private static readonly DatagramAddress s_v6Bound = DatagramAddress.Create(IPAddress.Parse("2001:db8::2"), Port);

    [RequiresFact(Requirement.Bpf)]
    public void Program_ForEitherFamily_IsAcceptedByTheVerifier()
    {
        using var map = BpfObjects.CreateXskMap(4);

        using var program = BpfObjects.LoadXdpProgram(XdpUdpProgram.Build(new XdpUdpMatch(Port), (int)map.DangerousGetHandle()), "test");

        Assert.False(program.IsInvalid);
    }

    [RequiresFact(Requirement.Bpf)]
    public void Program_WithBoundAddresses_IsAcceptedByTheVerifier()
    {
        using var map = BpfObjects.CreateXskMap(1);

        using var v4 = BpfObjects.LoadXdpProgram(XdpUdpProgram.Build(new XdpUdpMatch(Port, IPAddress.Parse("198.18.0.2")), (int)map.DangerousGetHandle()), "test");
        using var v6 = BpfObjects.LoadXdpProgram(XdpUdpProgram.Build(new XdpUdpMatch(Port, IPAddress.Parse("2001:db8::2")), (int)map.DangerousGetHandle()), "test");

        Assert.False(v4.IsInvalid);
        Assert.False(v6.IsInvalid);
    }

    [RequiresFact(Requirement.Bpf)]
    public void Load_ProgramTheVerifierRefuses_ReportsTheVerifiersLog()
    {
        // Reads the packet without comparing against data_end first.
        BpfInstruction[] unbounded =
        [
            BpfInstruction.LoadMemory(BPF_W, 2, 1, XdpMdData),
            BpfInstruction.LoadMemory(BPF_B, 0, 2, 0),
            BpfInstruction.Exit(),
        ];

        var error = Assert.Throws<InvalidOperationException>(() => BpfObjects.LoadXdpProgram(unbounded, "test"));

        Assert.Contains("EACCES", error.Message, StringComparison.Ordinal);
        Assert.Contains("invalid access to packet", error.Message, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Bpf)]
    public void Program_AnyAddress_RedirectsOnlyUdpToTheBoundPort()
    {
        using var run = new Runner(new XdpUdpMatch(Port));

        Assert.Equal(XDP_DROP, run.Verdict(Frame(s_v4Source, s_v4Bound)));
        Assert.Equal(XDP_DROP, run.Verdict(Frame(s_v6Source, s_v6Bound)));
        Assert.Equal(XDP_DROP, run.Verdict(Frame(s_v4Source, s_v4Bound.WithPort(Port), payload: 1400)));
        Assert.Equal(XDP_PASS, run.Verdict(Frame(s_v4Source, s_v4Bound.WithPort(Port + 1))));
        Assert.Equal(XDP_PASS, run.Verdict(Frame(s_v6Source, s_v6Bound.WithPort(Port - 1))));
        Assert.Equal(XDP_PASS, run.Verdict(Frame(s_v4Bound, s_v4Source)));
    }

    [RequiresFact(Requirement.Bpf)]
    public void Program_OtherTraffic_GoesToTheKernel()
    {
        using var run = new Runner(new XdpUdpMatch(Port));
        var frame = Frame(s_v4Source, s_v4Bound);

        Assert.Equal(XDP_PASS, run.Verdict(With(frame, f => BinaryPrimitives.WriteUInt16BigEndian(f.AsSpan(12), 0x0806))));
        Assert.Equal(XDP_PASS, run.Verdict(With(frame, f => f[23] = 6)));
        Assert.Equal(XDP_PASS, run.Verdict(With(frame, f => f[23] = 1)));
        Assert.Equal(XDP_PASS, run.Verdict(With(frame, f => f[20] = 0x20)));
        Assert.Equal(XDP_PASS, run.Verdict(With(frame, f => f[21] = 0x01)));
        Assert.Equal(XDP_PASS, run.Verdict(With(frame, f => f[14] = 0x44)));
        Assert.Equal(XDP_PASS, run.Verdict(With(Frame(s_v6Source, s_v6Bound), f => f[20] = 0)));
    }

    [RequiresFact(Requirement.Bpf)]
    public void Program_TruncatedFrames_GoToTheKernel()
    {
        using var run = new Runner(new XdpUdpMatch(Port));
        var v4 = Frame(s_v4Source, s_v4Bound);
        var v6 = Frame(s_v6Source, s_v6Bound);

        // BPF_PROG_TEST_RUN takes at least an Ethernet header; every shorter cut of the headers must still pass.
        for (var cut = 14; cut < 42; cut++)
        {
            Assert.Equal(XDP_PASS, run.Verdict(v4.AsSpan(0, cut)));
        }

        for (var cut = 14; cut < 62; cut++)
        {
            Assert.Equal(XDP_PASS, run.Verdict(v6.AsSpan(0, cut)));
        }
    }

    [RequiresFact(Requirement.Bpf)]
    public void Program_IPv4Options_AreSteppedOver()
    {
        using var run = new Runner(new XdpUdpMatch(Port));
        var plain = Frame(s_v4Source, s_v4Bound);
        // IHL 6: four bytes of options (a NOP list) between the IPv4 header and UDP.
        var withOptions = new byte[plain.Length + 4];
        plain.AsSpan(0, 34).CopyTo(withOptions);
        withOptions[14] = 0x46;
        withOptions.AsSpan(34, 4).Fill(1);
        plain.AsSpan(34).CopyTo(withOptions.AsSpan(38));

        Assert.Equal(XDP_DROP, run.Verdict(withOptions));
        Assert.Equal(XDP_PASS, run.Verdict(With(withOptions, f => f[40] ^= 0xFF)));
    }

    [RequiresFact(Requirement.Bpf)]
    public void Program_OneVlanTag_IsSteppedOver()
    {
        using var run = new Runner(new XdpUdpMatch(Port));
        var plain = Frame(s_v6Source, s_v6Bound);
        var tagged = new byte[plain.Length + 4];
        plain.AsSpan(0, 12).CopyTo(tagged);
        BinaryPrimitives.WriteUInt32BigEndian(tagged.AsSpan(12), 0x8100_0064);
        plain.AsSpan(12).CopyTo(tagged.AsSpan(16));

        Assert.Equal(XDP_DROP, run.Verdict(tagged));
    }

    [RequiresFact(Requirement.Bpf)]
    public void Program_BoundAddress_RedirectsOnlyThatDestinationAndFamily()
    {
        using var v4 = new Runner(new XdpUdpMatch(Port, IPAddress.Parse("198.18.0.2")));
        using var v6 = new Runner(new XdpUdpMatch(Port, IPAddress.Parse("2001:db8::2")));

        Assert.Equal(XDP_DROP, v4.Verdict(Frame(s_v4Source, s_v4Bound)));
        Assert.Equal(XDP_PASS, v4.Verdict(Frame(s_v4Source, DatagramAddress.Create(IPAddress.Parse("198.18.0.3"), Port))));
        Assert.Equal(XDP_PASS, v4.Verdict(Frame(s_v6Source, s_v6Bound)));
        Assert.Equal(XDP_DROP, v6.Verdict(Frame(s_v6Source, s_v6Bound)));
        Assert.Equal(XDP_PASS, v6.Verdict(Frame(s_v6Source, DatagramAddress.Create(IPAddress.Parse("2001:db8::3"), Port))));
        Assert.Equal(XDP_PASS, v6.Verdict(Frame(s_v4Source, s_v4Bound)));
    }

    private static byte[] Frame(DatagramAddress from, DatagramAddress to, int payload = 16)
    {
        var frame = new byte[UdpFrame.HeaderLength(from.Family) + payload];
        UdpFrame.Write(frame, s_mac, s_mac, from, to, payload);
        return frame;
    }

    private static byte[] With(byte[] frame, Action<byte[]> change)
    {
        var copy = (byte[])frame.Clone();
        change(copy);
        return copy;
    }

    private sealed class Runner : IDisposable
    {
        private readonly SafeDescriptorHandle _map;
        private readonly SafeDescriptorHandle _program;

        public Runner(XdpUdpMatch match)
        {
            _map = BpfObjects.CreateXskMap(1);
            _program = BpfObjects.LoadXdpProgram(XdpUdpProgram.Build(match, (int)_map.DangerousGetHandle(), emptySlotAction: XDP_DROP), "test");
        }

        public int Verdict(ReadOnlySpan<byte> frame)
        {
            var verdict = BpfObjects.TestRun(_program, frame, out var errno);
            Assert.Equal(Errno.None, errno);
            return verdict;
        }

        public void Dispose()
        {
            _program.Dispose();
            _map.Dispose();
        }
    }
}
