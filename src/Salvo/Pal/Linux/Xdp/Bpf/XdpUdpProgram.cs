using System.Buffers.Binary;
using System.Net.Sockets;
using static Salvo.Interop.Linux.BpfConstants;
using static Salvo.Pal.BpfInstruction;

namespace Salvo.Pal;

/// <summary>
/// The XDP program, written as instructions so that neither building nor running Salvo needs clang: it parses
/// Ethernet (with at most one 802.1Q tag), IPv4 (any header length, first fragments only) or IPv6 (UDP as the first
/// next header: no extension headers), then UDP; a datagram to the bound port (and address, when one is bound) goes
/// to <c>bpf_redirect_map(&amp;xsks_map, ctx-&gt;rx_queue_index, XDP_PASS)</c>, everything else to the kernel. The
/// flags argument of bpf_redirect_map is the action taken when the queue has no socket in the map (kernel 5.3 and
/// later), so a queue nobody listens on still reaches the kernel's stack.
/// </summary>
/// <remarks>
/// Header fields are loaded as little-endian words, so each constant compared against them is the network-order
/// value byte-swapped (EtherType 0x0800 reads as 0x0008). Every load is preceded by a comparison of its end against
/// <c>data_end</c>, which the verifier needs to accept the access.
/// </remarks>
internal static class XdpUdpProgram
{
    private const int Ctx = 6;
    private const int Cursor = 2;
    private const int End = 3;
    private const int Probe = 4;
    private const int EtherType = 5;
    private const int Scratch = 7;
    private const int EthernetLength = 14;
    private const string Pass = "pass";

    /// <summary>The instructions for <paramref name="match"/>, with <paramref name="mapFd"/> (an XSKMAP) in the redirect.</summary>
    /// <param name="match">Which datagrams are redirected.</param>
    /// <param name="mapFd">The XSKMAP's descriptor, resolved by the loader.</param>
    /// <param name="emptySlotAction">
    /// The verdict for a matching datagram whose queue has no socket: XDP_PASS in service; the tests load the program
    /// with XDP_DROP to tell a match from a miss by the verdict alone.
    /// </param>
    public static BpfInstruction[] Build(XdpUdpMatch match, int mapFd, int emptySlotAction = XDP_PASS)
    {
        var asm = new BpfAssembler();
        asm.Emit(Mov64Reg(Ctx, 1));
        asm.Emit(LoadMemory(BPF_W, Cursor, 1, XdpMdData));
        asm.Emit(LoadMemory(BPF_W, End, 1, XdpMdDataEnd));
        NeedBytes(asm, EthernetLength);
        asm.Emit(LoadMemory(BPF_H, EtherType, Cursor, 12));

        // One 802.1Q tag: step over it and read the EtherType it carries.
        asm.EmitJump(JumpImm(BPF_JNE, EtherType, Swap(0x8100), 0), "network");
        NeedBytes(asm, EthernetLength + 4);
        asm.Emit(LoadMemory(BPF_H, EtherType, Cursor, 16));
        asm.Emit(Add64Imm(Cursor, 4));
        asm.Mark("network");
        if (match.IPv4)
        {
            asm.EmitJump(JumpImm(BPF_JEQ, EtherType, Swap(0x0800), 0), "ipv4");
        }

        if (match.IPv6)
        {
            asm.EmitJump(JumpImm(BPF_JEQ, EtherType, Swap(0x86DD), 0), "ipv6");
        }

        asm.EmitJump(Jump(0), Pass);

        if (match.IPv4)
        {
            EmitIPv4(asm, match);
        }

        if (match.IPv6)
        {
            EmitIPv6(asm, match);
        }

        // UDP at Cursor + 14: the destination port is its second field.
        asm.Mark("udp");
        NeedBytes(asm, EthernetLength + 8);
        asm.Emit(LoadMemory(BPF_H, Scratch, Cursor, EthernetLength + 2));
        asm.EmitJump(JumpImm(BPF_JNE, Scratch, Swap(match.Port), 0), Pass);
        asm.Emit(LoadMemory(BPF_W, 2, Ctx, XdpMdRxQueueIndex));
        asm.Emit(LoadMapFd(1, mapFd));
        asm.Emit(LoadImmediateHigh(0));
        asm.Emit(Mov64Imm(3, emptySlotAction));
        asm.Emit(Call(BPF_FUNC_redirect_map));
        asm.Emit(Exit());

        asm.Mark(Pass);
        asm.Emit(Mov64Imm(0, XDP_PASS));
        asm.Emit(Exit());
        return asm.ToArray();
    }

    private static void EmitIPv4(BpfAssembler asm, XdpUdpMatch match)
    {
        const int Header = EthernetLength;
        asm.Mark("ipv4");
        NeedBytes(asm, Header + 20);
        asm.Emit(LoadMemory(BPF_B, EtherType, Cursor, Header));
        asm.Emit(Mov64Reg(Scratch, EtherType));
        asm.Emit(And64Imm(Scratch, 0xF0));
        asm.EmitJump(JumpImm(BPF_JNE, Scratch, 0x40, 0), Pass);
        asm.Emit(LoadMemory(BPF_B, Scratch, Cursor, Header + 9));
        asm.EmitJump(JumpImm(BPF_JNE, Scratch, (int)ProtocolType.Udp, 0), Pass);

        // A fragment (more-fragments set or an offset) goes to the kernel, which reassembles it: only a first fragment
        // has the UDP header, and the datagram is not whole in any one frame.
        asm.Emit(LoadMemory(BPF_H, Scratch, Cursor, Header + 6));
        asm.Emit(And64Imm(Scratch, Swap(0x3FFF)));
        asm.EmitJump(JumpImm(BPF_JNE, Scratch, 0, 0), Pass);
        if (match.IPv4Address is { } address)
        {
            asm.Emit(LoadMemory(BPF_W, Scratch, Cursor, Header + 16));
            asm.EmitJump(Jump32Imm(BPF_JNE, Scratch, address, 0), Pass);
        }

        // IHL counts 32-bit words, 5 to 15; a smaller value is malformed.
        asm.Emit(And64Imm(EtherType, 0x0F));
        asm.EmitJump(JumpImm(BPF_JLT, EtherType, 5, 0), Pass);
        asm.Emit(Lsh64Imm(EtherType, 2));
        asm.Emit(Add64Reg(Cursor, EtherType));
        asm.EmitJump(Jump(0), "udp");
    }

    private static void EmitIPv6(BpfAssembler asm, XdpUdpMatch match)
    {
        const int Header = EthernetLength;
        asm.Mark("ipv6");
        NeedBytes(asm, Header + 40);
        asm.Emit(LoadMemory(BPF_B, Scratch, Cursor, Header));
        asm.Emit(And64Imm(Scratch, 0xF0));
        asm.EmitJump(JumpImm(BPF_JNE, Scratch, 0x60, 0), Pass);
        asm.Emit(LoadMemory(BPF_B, Scratch, Cursor, Header + 6));
        asm.EmitJump(JumpImm(BPF_JNE, Scratch, (int)ProtocolType.Udp, 0), Pass);
        if (match.IPv6Address is { } address)
        {
            for (var word = 0; word < 4; word++)
            {
                asm.Emit(LoadMemory(BPF_W, Scratch, Cursor, (short)(Header + 24 + (4 * word))));
                asm.EmitJump(Jump32Imm(BPF_JNE, Scratch, address[word], 0), Pass);
            }
        }

        asm.Emit(Add64Imm(Cursor, 40));
    }

    /// <summary>Goes to pass unless <paramref name="length"/> bytes from the cursor lie within the packet.</summary>
    private static void NeedBytes(BpfAssembler asm, int length)
    {
        asm.Emit(Mov64Reg(Probe, Cursor));
        asm.Emit(Add64Imm(Probe, length));
        asm.EmitJump(JumpReg(BPF_JGT, Probe, End, 0), Pass);
    }

    private static int Swap(int networkOrder16) => BinaryPrimitives.ReverseEndianness((ushort)networkOrder16);
}
