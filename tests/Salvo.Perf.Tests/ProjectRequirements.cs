using Salvo.Perf.Tests.Lab;

namespace Salvo.Tests.Common;

/// <summary>The requirements only this project's code can probe: the CLI's io_uring probe, the veth lab.</summary>
public static partial class Requirements
{
    private static partial string? ProjectProbe(Requirement one) => one switch
    {
        Requirement.IoUring => Salvo.Perf.Doctor.IoUringProbe.Refusal is { } reason ? $"needs io_uring (kernel 5.19+): {reason}" : null,
        Requirement.VethLab => VethLabRequirement.WhyUnavailable(),
        _ => $"needs {one}, which this test project does not probe",
    };
}
