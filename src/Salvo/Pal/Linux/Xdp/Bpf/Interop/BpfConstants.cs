namespace Salvo.Interop.Linux;

/// <summary>
/// bpf(2)'s commands, types and instruction encoding from include/uapi/linux/bpf.h and bpf_common.h, the XDP attach
/// flags from include/uapi/linux/if_link.h (kernel 6.18), and the system call number from
/// arch/x86/entry/syscalls/syscall_64.tbl. LinuxAbiTests asserts them.
/// </summary>
internal static class BpfConstants
{
    /// <summary>x86-64's number; arm64 (include/uapi/asm-generic/unistd.h) uses 280.</summary>
    public const long SYS_bpf_x64 = 321;
    public const long SYS_bpf_arm64 = 280;

    // enum bpf_cmd
    public const int BPF_MAP_CREATE = 0;
    public const int BPF_MAP_UPDATE_ELEM = 2;
    public const int BPF_PROG_LOAD = 5;
    public const int BPF_PROG_TEST_RUN = 10;
    public const int BPF_LINK_CREATE = 28;

    public const uint BPF_PROG_TYPE_XDP = 6;
    public const uint BPF_MAP_TYPE_XSKMAP = 17;
    public const uint BPF_XDP = 37;
    public const byte BPF_PSEUDO_MAP_FD = 1;
    public const int BPF_FUNC_redirect_map = 51;
    public const ulong BPF_ANY = 0;

    // enum xdp_action
    public const int XDP_ABORTED = 0;
    public const int XDP_DROP = 1;
    public const int XDP_PASS = 2;
    public const int XDP_REDIRECT = 4;

    // XDP_FLAGS_*
    public const uint XDP_FLAGS_UPDATE_IF_NOEXIST = 1 << 0;
    public const uint XDP_FLAGS_SKB_MODE = 1 << 1;
    public const uint XDP_FLAGS_DRV_MODE = 1 << 2;

    // Instruction classes, sizes, modes and sources (bpf_common.h); BPF_JMP32 and BPF_ALU64 from bpf.h.
    public const byte BPF_LD = 0x00;
    public const byte BPF_LDX = 0x01;
    public const byte BPF_ALU = 0x04;
    public const byte BPF_JMP = 0x05;
    public const byte BPF_JMP32 = 0x06;
    public const byte BPF_ALU64 = 0x07;
    public const byte BPF_W = 0x00;
    public const byte BPF_H = 0x08;
    public const byte BPF_B = 0x10;
    public const byte BPF_DW = 0x18;
    public const byte BPF_IMM = 0x00;
    public const byte BPF_MEM = 0x60;
    public const byte BPF_K = 0x00;
    public const byte BPF_X = 0x08;

    // ALU and jump operations.
    public const byte BPF_ADD = 0x00;
    public const byte BPF_AND = 0x50;
    public const byte BPF_LSH = 0x60;
    public const byte BPF_MOV = 0xb0;
    public const byte BPF_JA = 0x00;
    public const byte BPF_JEQ = 0x10;
    public const byte BPF_JGT = 0x20;
    public const byte BPF_JNE = 0x50;
    public const byte BPF_JLT = 0xa0;
    public const byte BPF_CALL = 0x80;
    public const byte BPF_EXIT = 0x90;

    // struct xdp_md: what an XDP program reads from its context (r1).
    public const short XdpMdData = 0;
    public const short XdpMdDataEnd = 4;
    public const short XdpMdRxQueueIndex = 16;
}
