using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// Asks the kernel which io_uring opcodes it implements (IORING_REGISTER_PROBE, Linux 5.6), so that a kernel without
/// one the backend submits is refused when the engine is set up, and sockets fall back to LinuxBatched with the
/// opcode named, instead of each receive or send failing with EINVAL later.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class IoUringOpcodeProbe
{
    // ops_len is a __u8, so the kernel never reports more than 256 opcodes.
    private const int MaxOps = 256;

    /// <summary>Every opcode the backend submits: the wake-up, linked sends, the multishot receive and its cancellation.</summary>
    public static ReadOnlySpan<byte> BackendOpcodes =>
    [
        IoUringConstants.IORING_OP_NOP,
        IoUringConstants.IORING_OP_SENDMSG,
        IoUringConstants.IORING_OP_RECVMSG,
        IoUringConstants.IORING_OP_ASYNC_CANCEL,
    ];

    /// <summary>Null when <paramref name="ring"/>'s kernel implements every one of <paramref name="opcodes"/>; otherwise what is missing.</summary>
    public static string? Refusal(IoUringRing ring, ReadOnlySpan<byte> opcodes)
    {
        // The kernel refuses (EINVAL) a probe whose memory is not all zero.
        var size = sizeof(IoUringProbeHeader) + (MaxOps * sizeof(IoUringProbeOp));
        Span<byte> probe = stackalloc byte[size];
        probe.Clear();
        int result;
        // Safety: the span is on this stack frame for the whole call and holds the header plus MaxOps entries, the
        // most the kernel writes for the count passed.
        fixed (byte* memory = probe)
        {
            result = IoUringSyscalls.Register(ring.Descriptor, IoUringConstants.IORING_REGISTER_PROBE, memory, MaxOps);
        }

        if (result < 0)
        {
            return $"IORING_REGISTER_PROBE failed with {Libc.LastErrno} (the opcode probe needs Linux 5.6)";
        }

        var header = System.Runtime.InteropServices.MemoryMarshal.Read<IoUringProbeHeader>(probe);
        var ops = System.Runtime.InteropServices.MemoryMarshal.Cast<byte, IoUringProbeOp>(probe[sizeof(IoUringProbeHeader)..]);
        foreach (var opcode in opcodes)
        {
            if (opcode >= header.OpsLength || (ops[opcode].Flags & IoUringConstants.IO_URING_OP_SUPPORTED) == 0)
            {
                return $"the kernel does not implement io_uring opcode {Name(opcode)}";
            }
        }

        return null;
    }

    private static string Name(byte opcode) => opcode switch
    {
        IoUringConstants.IORING_OP_NOP => "IORING_OP_NOP",
        IoUringConstants.IORING_OP_SENDMSG => "IORING_OP_SENDMSG",
        IoUringConstants.IORING_OP_RECVMSG => "IORING_OP_RECVMSG",
        IoUringConstants.IORING_OP_ASYNC_CANCEL => "IORING_OP_ASYNC_CANCEL",
        _ => opcode.ToString(System.Globalization.CultureInfo.InvariantCulture),
    };
}
