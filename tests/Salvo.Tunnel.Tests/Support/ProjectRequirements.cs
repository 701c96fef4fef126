using Salvo.Tunnel.Tests.Lab;

namespace Salvo.Tests.Common;

/// <summary>The requirements only this project's code can probe: the tunnel lab, and wireguard-go as a peer.</summary>
public static partial class Requirements
{
    private static partial string? ProjectProbe(Requirement one) => one switch
    {
        Requirement.TunnelLab => TunnelLab.WhyUnavailable(),
        Requirement.WireGuardGo => WireGuardGoProcess.WhyUnavailable(),
        _ => $"needs {one}, which this test project does not probe",
    };
}
