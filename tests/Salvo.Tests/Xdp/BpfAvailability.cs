using Salvo.Pal;

namespace Salvo.Tests.Xdp;

/// <summary>Whether this process may load BPF objects: Linux with bpf(2) allowed (root, or CAP_BPF and CAP_NET_ADMIN).</summary>
public static class BpfAvailability
{
    private static readonly Lazy<string?> s_whyUnavailable = new(Probe);

    /// <summary>Why BPF objects cannot be created here, or null.</summary>
    public static string? WhyUnavailable => s_whyUnavailable.Value;

    private static string? Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "needs XDP, which needs Linux";
        }

        try
        {
            BpfObjects.CreateXskMap(1).Dispose();
            return null;
        }
        catch (InvalidOperationException e)
        {
            return $"needs BPF objects, which cannot be created here ({e.Message})";
        }
    }
}
