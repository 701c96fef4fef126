using System.Text.Json;
using Salvo.Perf.Lab;

namespace Salvo.Perf.Tests.Lab;

/// <summary>One short <c>salvo lab</c> run: two namespaces, every path at one size and one level, and nothing left behind.</summary>
public sealed class VethLabRunTests
{
    [RequiresFact(Requirement.VethLab)]
    public async Task Lab_OneShortRound_ReportsKernelAndCRowsAndRemovesItsNamespaces()
    {
        // 0.5 s windows, one round: six points of about 1-4 s each on a busy 2-core machine.
        var (exitCode, output, error) = await Cli.RunAsync(
            "lab", "-t", "0.5", "--warmup", "0.3", "--rounds", "1", "--sizes", "64", "--parallel-levels", "1", "--json");

        Assert.True(exitCode == 0, error);
        using var document = JsonDocument.Parse(output);
        var rates = document.RootElement.GetProperty("rates").EnumerateArray().ToDictionary(p => p.GetProperty("receiver").GetString()!);
        var rr = document.RootElement.GetProperty("requestResponse").EnumerateArray().ToDictionary(p => p.GetProperty("path").GetString()!);
        foreach (var path in new[] { "kernel", "c" })
        {
            Assert.True(rates[path].TryGetProperty("datagramsPerSecond", out var rate) && rate.GetDouble() > 0, $"{path}: {rates[path]}");
            Assert.True(rates[path].TryGetProperty("cpuNanosecondsPerDatagram", out var cpu) && cpu.GetDouble() > 0, $"{path}: {rates[path]}");
            Assert.True(rr[path].TryGetProperty("requestsPerSecond", out var requests) && requests.GetDouble() > 0, $"{path}: {rr[path]}");
        }

        Assert.Equal("salvo-LinuxBatched", rates["kernel"].GetProperty("backend").GetString());
        // AF_XDP either measured or says why not.
        Assert.True(rates["afxdp"].TryGetProperty("datagramsPerSecond", out _) || rates["afxdp"].GetProperty("notMeasured").GetString()!.Length > 0, rates["afxdp"].ToString());
        var (_, namespaces) = Salvo.Perf.Tunnel.BenchTools.Run("ip", ["netns", "list"]);
        Assert.DoesNotContain($"{VethLab.Prefix}{Environment.ProcessId}-", namespaces, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.VethLab)]
    public async Task Lab_WithoutTheCReference_SalvosOwnSenderFeedsTheKernelRowAndTheCRowsSayWhy()
    {
        var (exitCode, output, error) = await Cli.RunAsync(
            "lab", "--c-reference", "false", "--paths", "kernel,c", "-t", "0.5", "--warmup", "0.3", "--rounds", "1", "--sizes", "64", "--parallel-levels", "1", "--json");

        Assert.True(exitCode == 0, error);
        using var document = JsonDocument.Parse(output);
        var rates = document.RootElement.GetProperty("rates").EnumerateArray().ToDictionary(p => p.GetProperty("receiver").GetString()!);
        var rr = document.RootElement.GetProperty("requestResponse").EnumerateArray().ToDictionary(p => p.GetProperty("path").GetString()!);
        Assert.True(rates["kernel"].TryGetProperty("datagramsPerSecond", out var rate) && rate.GetDouble() > 0, rates["kernel"].ToString());
        Assert.Equal("skipped: --c-reference false", rates["c"].GetProperty("notMeasured").GetString());
        Assert.Equal("skipped: --c-reference false", rr["c"].GetProperty("notMeasured").GetString());
        Assert.Contains("lab: C rows skipped: --c-reference false", error, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.VethLab)]
    public void Lab_Sigterm_EndsItsProcessesRemovesItsNamespacesAndExitsWith143()
    {
        // The kernel path alone, 30 s windows: the signal comes while the first point runs, fed by C's sender or, on a
        // machine without a C compiler, by Salvo's.
        using var child = Reliability.SalvoChild.Start(["lab", "-t", "30", "--rounds", "1", "--sizes", "64", "--parallel-levels", "1", "--paths", "kernel"]);
        child.Output.WaitFor("lab: round 1/1, kernel receiving", TimeSpan.FromSeconds(60));
        var namespaces = $"{VethLab.Prefix}{child.Process.Id}-";
        Assert.Contains(namespaces, Salvo.Perf.Tunnel.BenchTools.Run("ip", ["netns", "list"]).Output, StringComparison.Ordinal);

        child.Signal("TERM");

        Assert.True(child.Process.WaitForExit(TimeSpan.FromSeconds(60)), $"it did not end on SIGTERM: {child.Output.Text}");
        child.Process.WaitForExit();
        Assert.True(child.Process.ExitCode == 143, $"exit code {child.Process.ExitCode}: {child.Output.Text}");
        Assert.Contains("salvo: cancelled (SIGTERM)", child.Output.Text, StringComparison.Ordinal);
        Assert.DoesNotContain(namespaces, Salvo.Perf.Tunnel.BenchTools.Run("ip", ["netns", "list"]).Output, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.VethLab)]
    public void VethLab_NamespacesOfADeadRun_AreRemovedAtTheNextStart()
    {
        // A process that has ended leaves a free id: a namespace named after it is what a killed run leaves.
        using var ended = System.Diagnostics.Process.Start("true");
        ended.WaitForExit();
        var stale = $"{VethLab.Prefix}{ended.Id}-a";
        Assert.Equal(0, Salvo.Perf.Tunnel.BenchTools.Run("ip", ["netns", "add", stale]).ExitCode);
        try
        {
            using var lab = new VethLab();

            var list = Salvo.Perf.Tunnel.BenchTools.Run("ip", ["netns", "list"]).Output;
            Assert.DoesNotContain(stale, list, StringComparison.Ordinal);
            Assert.Contains(lab.HostB, list, StringComparison.Ordinal);
        }
        finally
        {
            Salvo.Perf.Tunnel.BenchTools.Run("ip", ["netns", "del", stale]);
        }
    }
}

/// <summary>What <c>salvo lab</c> needs (Linux, root, ip, taskset).</summary>
public static class VethLabRequirement
{
    /// <summary>Why <c>salvo lab</c> cannot run here, or null.</summary>
    public static string? WhyUnavailable()
    {
        var missing = LabRequirements.Missing(OperatingSystem.IsLinux(), Environment.UserName == "root", Salvo.Perf.Tunnel.BenchTools.Find);
        return missing.Count > 0 ? $"salvo lab cannot run here: {string.Join("; ", missing)}" : null;
    }
}
