using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using Salvo.Pal;

namespace Salvo.Tests.Sockets;

/// <summary>The engine asks the kernel for the opcodes it submits before it arms anything, and refuses a kernel without one.</summary>
[SupportedOSPlatform("linux")]
public sealed class IoUringOpcodeProbeTests
{
    [RequiresFact(Requirement.IoUring)]
    public void Probe_OnThisKernel_FindsEveryOpcodeTheBackendSubmits()
    {
        using var ring = OpenRing();

        Assert.Null(IoUringOpcodeProbe.Refusal(ring, IoUringOpcodeProbe.BackendOpcodes));
    }

    [RequiresFact(Requirement.IoUring)]
    public void Probe_AnOpcodePastTheKernelsLast_IsRefusedByNumber()
    {
        // No kernel has 255 opcodes (6.18 has fewer than 70): the probe must read the kernel's table, not assume.
        using var ring = OpenRing();

        var refusal = IoUringOpcodeProbe.Refusal(ring, [IoUringConstants.IORING_OP_RECVMSG, 255]);

        Assert.Equal("the kernel does not implement io_uring opcode 255", refusal);
    }

    private static IoUringRing OpenRing()
    {
        var ring = IoUringRing.TryCreate(8, 16, [0u], out var errno);
        Assert.True(ring is not null, $"io_uring_setup failed with {errno}");
        return ring;
    }
}
