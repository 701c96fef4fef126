using System.Globalization;

namespace Salvo.Tests.Common;

/// <summary>
/// Why this machine cannot run a test, in words a reader can act on ("needs root", "needs the stock 'sockperf' binary on
/// PATH"), or null when it can. The probes every test project shares are here; the ones that need a project's own code
/// (io_uring, BPF, the labs) are that project's <see cref="ProjectProbe"/>.
/// </summary>
public static partial class Requirements
{
    /// <summary>The first thing missing of <paramref name="needs"/>, <paramref name="tools"/> and <paramref name="openFiles"/>; null when nothing is.</summary>
    public static string? WhyNot(Requirement needs, IReadOnlyList<string> tools, int openFiles)
    {
        foreach (var one in Enum.GetValues<Requirement>())
        {
            if (one != Requirement.None && needs.HasFlag(one) && Probe(one) is { } why)
            {
                return why;
            }
        }

        if (tools.FirstOrDefault(tool => Find(tool) is null) is { } missing)
        {
            return $"needs the stock '{missing}' binary on PATH";
        }

        return openFiles > 0 && OpenFilesSoftLimit() is var limit && limit < openFiles
            ? string.Create(CultureInfo.InvariantCulture, $"needs {openFiles} open files; the soft limit is {limit} (ulimit -n)")
            : null;
    }

    /// <summary>The full path of <paramref name="tool"/> in a folder on PATH (or /usr/sbin, /sbin, where root's tools live); null when none has it.</summary>
    public static string? Find(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Concat(["/usr/sbin", "/sbin"])
            .Select(folder => Path.Combine(folder, tool))
            .FirstOrDefault(File.Exists);

    private static string? Probe(Requirement one) => one switch
    {
        Requirement.Linux => OperatingSystem.IsLinux() ? null : "needs Linux",
        Requirement.Root => Environment.IsPrivilegedProcess ? null : "needs root",
        Requirement.Netns => !OperatingSystem.IsLinux() ? "needs Linux network namespaces"
            : !Environment.IsPrivilegedProcess ? "needs root to create network namespaces (CI runs as root)"
            : Find("ip") is null ? "needs the stock 'ip' binary (iproute2) on PATH"
            : null,
        Requirement.Tun => File.Exists("/dev/net/tun") ? null : "needs the TUN device (/dev/net/tun is missing)",
        Requirement.IPv6 => System.Net.Sockets.Socket.OSSupportsIPv6 ? null : "needs IPv6",
        Requirement.TwoCpus => Environment.ProcessorCount >= 2 ? null : "needs two CPUs this process may run on",
        Requirement.Measure => Environment.GetEnvironmentVariable("SALVO_MEASURE") == "1" ? null : "a measurement; set SALVO_MEASURE=1 to run it",
        _ => ProjectProbe(one),
    };

    /// <summary>Why <paramref name="one"/>, a requirement only this test project's code can probe, is missing; null when it is not.</summary>
    private static partial string? ProjectProbe(Requirement one);

    /// <summary>The soft limit of open files (ulimit -n); 0 where it cannot be read, so a test that needs many is skipped.</summary>
    private static long OpenFilesSoftLimit()
    {
        const string limits = "/proc/self/limits";
        if (!File.Exists(limits))
        {
            return 0;
        }

        // "Max open files            1024                 1048576              files"
        var line = File.ReadLines(limits).FirstOrDefault(l => l.StartsWith("Max open files", StringComparison.Ordinal));
        return line?["Max open files".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries) switch
        {
            ["unlimited", ..] => long.MaxValue,
            [var soft, ..] when long.TryParse(soft, NumberStyles.None, CultureInfo.InvariantCulture, out var value) => value,
            _ => 0,
        };
    }
}
