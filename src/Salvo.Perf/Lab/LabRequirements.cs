namespace Salvo.Perf.Lab;

/// <summary>What <c>salvo lab</c> needs before it creates anything; it installs nothing itself.</summary>
internal static class LabRequirements
{
    /// <summary>Each tool it runs, with the Debian/Ubuntu package that brings it.</summary>
    private static readonly (string Tool, string Package)[] s_tools =
    [
        ("ip", "iproute2"),
        ("taskset", "util-linux"),
    ];

    /// <summary>Why the lab cannot run here, each with what to do; empty when it can.</summary>
    /// <param name="isLinux">Whether this is Linux (network namespaces, veth and AF_XDP are Linux's).</param>
    /// <param name="isRoot">Whether this process runs as root.</param>
    /// <param name="find">A tool's full path, or null when it is not installed.</param>
    public static IReadOnlyList<string> Missing(bool isLinux, bool isRoot, Func<string, string?> find)
    {
        if (!isLinux)
        {
            return ["Linux: the lab is two network namespaces joined by a veth pair, which only Linux has"];
        }

        var missing = new List<string>();
        if (!isRoot)
        {
            missing.Add("root: creating network namespaces needs it, and AF_XDP needs CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF (run with sudo)");
        }

        var absent = s_tools.Where(t => find(t.Tool) is null).ToList();
        missing.AddRange(absent.Select(t => $"{t.Tool}: not installed (package {t.Package})"));
        if (absent.Count > 0)
        {
            missing.Add($"install with: sudo apt-get install {string.Join(' ', absent.Select(t => t.Package))}");
        }

        return missing;
    }
}
