namespace Salvo.Tests.Lab;

/// <summary>A fact that needs the two-host lab and the AF_XDP backend (root, or CAP_NET_RAW, CAP_BPF and CAP_NET_ADMIN); skipped with the reason otherwise.</summary>
public sealed class AfXdpLabFactAttribute : FactAttribute
{
    public AfXdpLabFactAttribute()
    {
        Skip = AfXdpLab.WhyUnavailable();
    }
}

/// <summary>A theory that needs the two-host lab and the AF_XDP backend; skipped with the reason otherwise.</summary>
public sealed class AfXdpLabTheoryAttribute : TheoryAttribute
{
    public AfXdpLabTheoryAttribute()
    {
        Skip = AfXdpLab.WhyUnavailable();
    }
}
