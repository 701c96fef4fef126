namespace Salvo.Tests.Common;

/// <summary>The requirements only this project's code can probe: the daemon's userspace lab and the package lab.</summary>
public static partial class Requirements
{
    private static partial string? ProjectProbe(Requirement one) => one switch
    {
        Requirement.UserspaceLab => Salvo.WireGuard.Tests.UserspaceLab.WhyUnavailable(wgQuick: false),
        Requirement.DebianPackage => Salvo.WireGuard.Tests.NativePackage.WhyUnavailable(),
        _ => $"needs {one}, which this test project does not probe",
    };
}
