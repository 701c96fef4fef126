using System.Runtime.InteropServices;
using Salvo.Pal;
using static Salvo.Interop.Linux.BpfConstants;

namespace Salvo.Tests.Xdp;

/// <summary>The encoder writes struct bpf_insn exactly as the kernel reads it.</summary>
public sealed class BpfInstructionTests
{
    public static TheoryData<string, string> KnownInstructions => new()
    {
        // As llvm-objdump prints them: opcode, dst|src<<4, off (LE), imm (LE).
        { "r0 = 2", "b7 00 00 00 02 00 00 00" },
        { "exit", "95 00 00 00 00 00 00 00" },
        { "r2 = *(u32 *)(r1 + 4)", "61 12 04 00 00 00 00 00" },
        { "r7 = *(u16 *)(r2 + 16)", "69 27 10 00 00 00 00 00" },
        { "r5 = *(u8 *)(r2 + 14)", "71 25 0e 00 00 00 00 00" },
        { "r6 = r1", "bf 16 00 00 00 00 00 00" },
        { "r4 += 14", "07 04 00 00 0e 00 00 00" },
        { "r2 += r5", "0f 52 00 00 00 00 00 00" },
        { "r7 &= 240", "57 07 00 00 f0 00 00 00" },
        { "r5 <<= 2", "67 05 00 00 02 00 00 00" },
        { "if r4 > r3 goto +9", "2d 34 09 00 00 00 00 00" },
        { "if r7 != 0x9210 goto +3", "55 07 03 00 10 92 00 00" },
        { "if w7 != 0x20012c6 goto +1", "56 07 01 00 c6 12 00 02" },
        { "if r5 < 5 goto +2", "a5 05 02 00 05 00 00 00" },
        { "goto +4", "05 00 04 00 00 00 00 00" },
        { "call 51", "85 00 00 00 33 00 00 00" },
        { "r1 = map[fd 7] (1/2)", "18 11 00 00 07 00 00 00" },
        { "r1 = map[fd 7] (2/2)", "00 00 00 00 00 00 00 00" },
    };

    [Theory]
    [MemberData(nameof(KnownInstructions))]
    public void Encoder_KnownInstruction_WritesTheKernelsBytes(string instruction, string expected)
    {
        BpfInstruction encoded = instruction switch
        {
            "r0 = 2" => BpfInstruction.Mov64Imm(0, 2),
            "exit" => BpfInstruction.Exit(),
            "r2 = *(u32 *)(r1 + 4)" => BpfInstruction.LoadMemory(BPF_W, 2, 1, 4),
            "r7 = *(u16 *)(r2 + 16)" => BpfInstruction.LoadMemory(BPF_H, 7, 2, 16),
            "r5 = *(u8 *)(r2 + 14)" => BpfInstruction.LoadMemory(BPF_B, 5, 2, 14),
            "r6 = r1" => BpfInstruction.Mov64Reg(6, 1),
            "r4 += 14" => BpfInstruction.Add64Imm(4, 14),
            "r2 += r5" => BpfInstruction.Add64Reg(2, 5),
            "r7 &= 240" => BpfInstruction.And64Imm(7, 0xF0),
            "r5 <<= 2" => BpfInstruction.Lsh64Imm(5, 2),
            "if r4 > r3 goto +9" => BpfInstruction.JumpReg(BPF_JGT, 4, 3, 9),
            "if r7 != 0x9210 goto +3" => BpfInstruction.JumpImm(BPF_JNE, 7, 0x9210, 3),
            "if w7 != 0x20012c6 goto +1" => BpfInstruction.Jump32Imm(BPF_JNE, 7, 0x020012c6, 1),
            "if r5 < 5 goto +2" => BpfInstruction.JumpImm(BPF_JLT, 5, 5, 2),
            "goto +4" => BpfInstruction.Jump(4),
            "call 51" => BpfInstruction.Call(BPF_FUNC_redirect_map),
            "r1 = map[fd 7] (1/2)" => BpfInstruction.LoadMapFd(1, 7),
            "r1 = map[fd 7] (2/2)" => BpfInstruction.LoadImmediateHigh(0),
            _ => throw new ArgumentOutOfRangeException(nameof(instruction)),
        };

        Assert.Equal(expected, Hex(encoded));
    }

    [Fact]
    public void Instruction_Size_IsEightBytes() => Assert.Equal(8, Marshal.SizeOf<BpfInstruction>());

    [Fact]
    public void Assembler_ForwardJump_CountsFromTheNextInstruction()
    {
        var asm = new BpfAssembler();
        asm.EmitJump(BpfInstruction.JumpImm(BPF_JEQ, 1, 0, 0), "out");
        asm.Emit(BpfInstruction.Mov64Imm(0, 1));
        asm.Emit(BpfInstruction.Exit());
        asm.Mark("out");
        asm.Emit(BpfInstruction.Mov64Imm(0, 2));

        var program = asm.ToArray();

        Assert.Equal(2, program[0].Offset);
    }

    [Fact]
    public void Assembler_UnmarkedLabel_IsRefusedNamingIt()
    {
        var asm = new BpfAssembler();
        asm.EmitJump(BpfInstruction.Jump(0), "nowhere");

        var error = Assert.Throws<InvalidOperationException>(asm.ToArray);

        Assert.Contains("'nowhere'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Program_LddwOfTheMap_TakesTwoSlotsWithThePseudoMapFd()
    {
        var program = XdpUdpProgram.Build(new XdpUdpMatch(4242), mapFd: 9);

        var index = Array.FindIndex(program, instruction => instruction.Code == (BPF_LD | BPF_DW | BPF_IMM));

        Assert.True(index > 0);
        Assert.Equal(BPF_PSEUDO_MAP_FD, program[index].Source);
        Assert.Equal(9, program[index].Immediate);
        Assert.Equal(default, program[index + 1]);
        Assert.Equal(BpfInstruction.Call(BPF_FUNC_redirect_map), program[index + 3]);
    }

    private static string Hex(BpfInstruction instruction)
    {
        Span<byte> bytes = stackalloc byte[8];
        MemoryMarshal.Write(bytes, in instruction);
        return Convert.ToHexString(bytes).ToLowerInvariant().Chunk(2).Select(pair => new string(pair)).Aggregate((a, b) => $"{a} {b}");
    }
}
