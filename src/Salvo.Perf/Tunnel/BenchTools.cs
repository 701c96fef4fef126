using Salvo.Perf.Measurement;
using System.Globalization;
using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Tunnel;

/// <summary>The system tools <c>salvo tunnel bench</c> drives, how to get the missing ones, and how to read their output.</summary>
internal static class BenchTools
{
    private static readonly string[] s_searchPath = ["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"];

    /// <summary>Each tool the bench needs, with the Debian/Ubuntu package that brings it.</summary>
    private static readonly (string Tool, string Package)[] s_required =
    [
        ("ip", "iproute2"),
        ("iperf3", "iperf3"),
        ("ping", "iputils-ping"),
        ("wireguard-go", "wireguard-go"),
        ("wg", "wireguard-tools"),
    ];

    /// <summary>The full path of <paramref name="tool"/>, or null when it is not installed.</summary>
    public static string? Find(string tool) =>
        s_searchPath.Select(folder => Path.Combine(folder, tool)).FirstOrDefault(File.Exists);

    /// <summary>Why the bench cannot run here, each with what to do; empty when it can. It installs nothing itself.</summary>
    public static IReadOnlyList<string> Missing(bool isRoot, bool hasTun, Func<string, string?> find)
    {
        var missing = new List<string>();
        if (!isRoot)
        {
            missing.Add("root: network namespaces and TUN devices need it (run with sudo)");
        }

        if (!hasTun)
        {
            missing.Add("/dev/net/tun: load the tun module (modprobe tun)");
        }

        var packages = s_required.Where(r => find(r.Tool) is null).ToList();
        missing.AddRange(packages.Select(p => $"{p.Tool}: not installed (package {p.Package})"));
        if (packages.Count > 0)
        {
            missing.Add($"install with: sudo apt-get install {string.Join(' ', packages.Select(p => p.Package).Distinct())}");
        }

        return missing;
    }

    /// <summary>Runs <paramref name="tool"/> inside namespace <paramref name="host"/> (ip netns exec); returns exit code and output.</summary>
    public static (int ExitCode, string Output) RunIn(string host, string tool, IEnumerable<string> arguments, int timeoutSeconds) =>
        ChildProcess.Run(Find(tool) ?? tool, arguments, timeoutSeconds, inNamespace: host);

    /// <summary>Runs <paramref name="tool"/> in this namespace; returns exit code and output.</summary>
    public static (int ExitCode, string Output) Run(string tool, IEnumerable<string> arguments, int timeoutSeconds = 10) =>
        ChildProcess.Run(tool, arguments, timeoutSeconds);

    /// <summary>Runs ip (iproute2) in the host namespace and throws with its message when it fails.</summary>
    public static void Ip(params string[] arguments)
    {
        var (exitCode, output) = Run("ip", arguments);
        if (exitCode != 0)
        {
            throw new CliException($"bench: ip {string.Join(' ', arguments)} failed: {output.Trim()}", CliException.FailureExitCode);
        }
    }

    /// <summary>
    /// The receiver's throughput in Mbit/s, for UDP the loss in percent, and for TCP the sender's retransmitted segments
    /// (the sending end's, also with -R, where the server sends and reports them), from iperf3 -J output.
    /// </summary>
    public static (double Mbps, double LossPercent, long Retransmits) ParseIperf(string json)
    {
        using var document = JsonDocument.Parse(json);
        var root = document.RootElement;
        if (root.TryGetProperty("error", out var error))
        {
            throw new CliException($"bench: iperf3: {error.GetString()}", CliException.FailureExitCode);
        }

        var end = root.GetProperty("end");
        var received = end.GetProperty("sum_received").GetProperty("bits_per_second").GetDouble() / 1e6;
        var loss = end.TryGetProperty("sum", out var sum) && sum.TryGetProperty("lost_percent", out var lost) ? lost.GetDouble() : 0;
        var retransmits = end.TryGetProperty("sum_sent", out var sent) && sent.TryGetProperty("retransmits", out var count) ? count.GetInt64() : 0;
        return (received, loss, retransmits);
    }

    /// <summary>The average round trip in microseconds from ping's summary line (rtt min/avg/max/mdev = a/b/c/d ms).</summary>
    public static double ParsePingAverageMicroseconds(string output)
    {
        var line = output.Split('\n').FirstOrDefault(l => l.StartsWith("rtt ", StringComparison.Ordinal) || l.StartsWith("round-trip ", StringComparison.Ordinal))
            ?? throw new CliException($"bench: ping printed no round-trip summary: {output.Trim()}", CliException.FailureExitCode);
        var values = line.Split('=')[1].Trim().Split(' ')[0].Split('/');
        return double.Parse(values[1], CultureInfo.InvariantCulture) * 1_000;
    }

    /// <summary>The median round trip in microseconds over ping's echo lines (time=0.293 ms).</summary>
    public static double ParsePingMedianMicroseconds(string output)
    {
        var times = output.Split('\n')
            .Select(l => l.IndexOf(" time=", StringComparison.Ordinal) is var at and >= 0 ? l[(at + 6)..].Split(' ')[0] : null)
            .Where(t => t is not null)
            .Select(t => double.Parse(t!, CultureInfo.InvariantCulture) * 1_000)
            .ToList();
        return times.Count == 0
            ? throw new CliException($"bench: ping printed no echo times: {output.Trim()}", CliException.FailureExitCode)
            : Spread.Of(times).Median;
    }
}
