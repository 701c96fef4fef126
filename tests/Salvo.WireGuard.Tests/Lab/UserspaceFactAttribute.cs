namespace Salvo.WireGuard.Tests;

/// <summary>A fact that runs <c>wireguard-salvo IFACE</c> in a lab namespace (and, with <c>wgQuick</c>, stock wg-quick, wg, wireguard-go, ping, iperf3); skipped with the reason otherwise.</summary>
public sealed class UserspaceFactAttribute : FactAttribute
{
    public UserspaceFactAttribute(bool wgQuick = false)
    {
        if (UserspaceLab.WhyUnavailable(wgQuick) is { } why)
        {
            Skip = why;
        }
    }
}

/// <summary>A theory that runs <c>wireguard-salvo IFACE</c> in a lab namespace; skipped with the reason otherwise.</summary>
public sealed class UserspaceTheoryAttribute : TheoryAttribute
{
    public UserspaceTheoryAttribute()
    {
        if (UserspaceLab.WhyUnavailable(wgQuick: false) is { } why)
        {
            Skip = why;
        }
    }
}
