using System.Runtime.Versioning;
using System.Text.Json;
using Salvo.Perf.Doctor;

namespace Salvo.Perf.Tests;

public sealed class DoctorTests
{
    [Fact]
    public void Diagnose_ProducesFindingsWithoutThrowing()
    {
        var report = DoctorCommand.Diagnose();

        Assert.NotEmpty(report.Findings);
        Assert.All(report.Findings, f => Assert.False(string.IsNullOrWhiteSpace(f.Value)));
        Assert.All(report.Findings.Where(f => f.Status == FindingStatus.Warn), f => Assert.False(string.IsNullOrWhiteSpace(f.Recommendation)));
    }

    [RequiresFact(Requirement.Linux)]
    public void Diagnose_OnLinux_ReadsKernelBuffersAndProbes()
    {
        var checks = DoctorCommand.Diagnose().Findings.Select(f => f.Check).ToList();

        Assert.Contains("kernel", checks);
        Assert.Contains("net.core.rmem_max", checks);
        Assert.Contains("udp gso (UDP_SEGMENT)", checks);
        Assert.Contains("SO_REUSEPORT", checks);
        Assert.Contains(checks, c => c.StartsWith("mtu ", StringComparison.Ordinal));
    }

    [RequiresFact(Requirement.Linux)]
    [SupportedOSPlatform("linux")]
    public void Diagnose_OnLinux_SaysWhetherTheAfXdpBackendRuns_AndWhyNot()
    {
        var finding = Assert.Single(DoctorCommand.Diagnose().Findings, f => f.Check == "salvo AF_XDP backend");
        var available = DatagramSocket.IsBackendAvailable(DatagramBackend.AfXdp, out var reason);

        Assert.Equal(available ? FindingStatus.Ok : FindingStatus.Info, finding.Status);
        Assert.Equal(available ? "available (salvo server --backend afxdp: one worker, bound to an interface's own address)" : $"unavailable: {reason}", finding.Value);
    }

    [Fact]
    public async Task Text_NotATerminal_NoLineEndsInPadding()
    {
        var (exit, output, _) = await Cli.RunAsync("doctor");

        Assert.Equal(0, exit);
        var lines = output.Split('\n');
        Assert.Contains(lines, line => line.StartsWith("check ", StringComparison.Ordinal));
        Assert.All(lines, line => Assert.False(line.EndsWith(' '), $"padded to {line.Length} characters: '{line}'"));
    }

    [Fact]
    public async Task Json_PrintsFindingsWithStatusAsText()
    {
        var (exit, output, _) = await Cli.RunAsync("doctor", "--json");

        Assert.Equal(0, exit);
        using var document = JsonDocument.Parse(output);
        var first = document.RootElement.GetProperty("findings")[0];
        Assert.Contains(first.GetProperty("status").GetString(), new[] { "ok", "warn", "info" });
    }
}
