using System.Runtime.InteropServices;
using static Salvo.Interop.Linux.BpfConstants;

namespace Salvo.Pal;

/// <summary>
/// One eBPF instruction, <c>struct bpf_insn</c> of include/uapi/linux/bpf.h: 8 bytes, the opcode, the destination
/// register in the low nibble and the source register in the high nibble of the second byte (little-endian bit-field
/// order), a signed 16-bit offset and a signed 32-bit immediate. A 64-bit immediate load (<c>lddw</c>) takes two.
/// The factories are named after the kernel's own macros in include/linux/filter.h.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal readonly struct BpfInstruction : IEquatable<BpfInstruction>
{
    public readonly byte Code;
    public readonly byte Registers;
    public readonly short Offset;
    public readonly int Immediate;

    public BpfInstruction(byte code, int destination, int source, short offset, int immediate)
    {
        if ((uint)destination > 10 || (uint)source > 10)
        {
            throw new ArgumentOutOfRangeException(nameof(destination), $"BPF has registers r0 to r10 (got r{destination}, r{source}).");
        }

        Code = code;
        Registers = (byte)(destination | (source << 4));
        Offset = offset;
        Immediate = immediate;
    }

    public int Destination => Registers & 0xF;

    public int Source => Registers >> 4;

    /// <summary><c>dst = imm</c> (64-bit, the immediate sign-extended).</summary>
    public static BpfInstruction Mov64Imm(int destination, int immediate) => new(BPF_ALU64 | BPF_MOV | BPF_K, destination, 0, 0, immediate);

    /// <summary><c>dst = src</c> (64-bit).</summary>
    public static BpfInstruction Mov64Reg(int destination, int source) => new(BPF_ALU64 | BPF_MOV | BPF_X, destination, source, 0, 0);

    /// <summary><c>dst += imm</c> (64-bit).</summary>
    public static BpfInstruction Add64Imm(int destination, int immediate) => new(BPF_ALU64 | BPF_ADD | BPF_K, destination, 0, 0, immediate);

    /// <summary><c>dst += src</c> (64-bit).</summary>
    public static BpfInstruction Add64Reg(int destination, int source) => new(BPF_ALU64 | BPF_ADD | BPF_X, destination, source, 0, 0);

    /// <summary><c>dst &amp;= imm</c> (64-bit).</summary>
    public static BpfInstruction And64Imm(int destination, int immediate) => new(BPF_ALU64 | BPF_AND | BPF_K, destination, 0, 0, immediate);

    /// <summary><c>dst &lt;&lt;= imm</c> (64-bit).</summary>
    public static BpfInstruction Lsh64Imm(int destination, int immediate) => new(BPF_ALU64 | BPF_LSH | BPF_K, destination, 0, 0, immediate);

    /// <summary><c>dst = *(size *)(src + offset)</c>, size one of BPF_B, BPF_H, BPF_W, BPF_DW; the value zero-extended.</summary>
    public static BpfInstruction LoadMemory(byte size, int destination, int source, short offset) => new((byte)(BPF_LDX | size | BPF_MEM), destination, source, offset, 0);

    /// <summary><c>lddw dst, map</c>: the first of two slots; the loader resolves <paramref name="mapFd"/> to the map (BPF_PSEUDO_MAP_FD).</summary>
    public static BpfInstruction LoadMapFd(int destination, int mapFd) => new(BPF_LD | BPF_DW | BPF_IMM, destination, BPF_PSEUDO_MAP_FD, 0, mapFd);

    /// <summary>The second slot of a 64-bit immediate load: the upper 32 bits, zero for a map.</summary>
    public static BpfInstruction LoadImmediateHigh(int upper) => new(0, 0, 0, 0, upper);

    /// <summary><c>if (dst op imm) goto pc + 1 + offset</c>, 64-bit comparison (the immediate sign-extended).</summary>
    public static BpfInstruction JumpImm(byte operation, int destination, int immediate, short offset) => new((byte)(BPF_JMP | operation | BPF_K), destination, 0, offset, immediate);

    /// <summary><c>if ((u32)dst op (u32)imm) goto pc + 1 + offset</c>: a 32-bit comparison (BPF_JMP32, kernel 5.1 and later).</summary>
    public static BpfInstruction Jump32Imm(byte operation, int destination, int immediate, short offset) => new((byte)(BPF_JMP32 | operation | BPF_K), destination, 0, offset, immediate);

    /// <summary><c>if (dst op src) goto pc + 1 + offset</c>, 64-bit comparison.</summary>
    public static BpfInstruction JumpReg(byte operation, int destination, int source, short offset) => new((byte)(BPF_JMP | operation | BPF_X), destination, source, offset, 0);

    /// <summary><c>goto pc + 1 + offset</c>.</summary>
    public static BpfInstruction Jump(short offset) => new(BPF_JMP | BPF_JA, 0, 0, offset, 0);

    /// <summary>Calls helper number <paramref name="helper"/> (enum bpf_func_id) with r1 to r5; the result is in r0.</summary>
    public static BpfInstruction Call(int helper) => new(BPF_JMP | BPF_CALL, 0, 0, 0, helper);

    /// <summary>Returns r0.</summary>
    public static BpfInstruction Exit() => new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

    /// <summary>The same instruction with another jump offset (the assembler's label fix-up).</summary>
    public BpfInstruction WithOffset(short offset) => new(Code, Destination, Source, offset, Immediate);

    public bool Equals(BpfInstruction other) =>
        Code == other.Code && Registers == other.Registers && Offset == other.Offset && Immediate == other.Immediate;

    public override bool Equals(object? obj) => obj is BpfInstruction other && Equals(other);

    public override int GetHashCode() => HashCode.Combine(Code, Registers, Offset, Immediate);

    public override string ToString() => $"{{code 0x{Code:x2}, dst r{Destination}, src r{Source}, off {Offset}, imm {Immediate}}}";
}
