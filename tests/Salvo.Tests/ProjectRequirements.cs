using Salvo.Tests.Xdp;

namespace Salvo.Tests.Common;

/// <summary>The requirements only this project's code can probe: the io_uring and AF_XDP backends, BPF objects.</summary>
public static partial class Requirements
{
    private static partial string? ProjectProbe(Requirement one) => one switch
    {
        Requirement.IoUring => IoUringAvailability.Unavailable,
        Requirement.Bpf => BpfAvailability.WhyUnavailable,
        Requirement.AfXdpLab => AfXdpLab.WhyUnavailable(),
        _ => $"needs {one}, which this test project does not probe",
    };
}
