namespace Salvo.Tunnel.Tests.Lab;

/// <summary>A fact that needs the tunnel lab with the given ends (root, ip, ping, iperf3, wireguard-go); skipped with the reason otherwise.</summary>
public sealed class TunnelLabFactAttribute : FactAttribute
{
    public TunnelLabFactAttribute(params TunnelEnd[] ends)
    {
        if (TunnelLab.WhyUnavailable(ends) is { } why)
        {
            Skip = why;
        }
    }
}
