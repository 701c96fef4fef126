using Salvo.Pal;

namespace Salvo.Tests.Xdp;

/// <summary>A fact that loads BPF objects: Linux with bpf(2) allowed to this process (root, or CAP_BPF and CAP_NET_ADMIN); skipped with the reason otherwise.</summary>
public sealed class XdpFactAttribute : FactAttribute
{
    public XdpFactAttribute(bool needsLab = false)
    {
        Skip = needsLab ? Lab.NetworkLab.WhyUnavailable() ?? s_whyUnavailable.Value : s_whyUnavailable.Value;
    }

    private static readonly Lazy<string?> s_whyUnavailable = new(Probe);

    private static string? Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "XDP needs Linux";
        }

        try
        {
            BpfObjects.CreateXskMap(1).Dispose();
            return null;
        }
        catch (InvalidOperationException e)
        {
            return $"BPF objects cannot be created here ({e.Message})";
        }
    }
}
