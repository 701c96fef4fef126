using System.Text.Json;

namespace Salvo.Perf.Tests;

public sealed class DoctorLibraryProbeTests
{
    [Fact]
    public async Task Doctor_ReportsTheLibrarysOwnProbe()
    {
        var (exit, output, error) = await Cli.RunAsync("doctor", "--json");
        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var probe = document.RootElement.GetProperty("findings").EnumerateArray()
            .Single(f => f.GetProperty("check").GetString() == "salvo library probe");
        var value = probe.GetProperty("value").GetString()!;
        Assert.Contains("backend", value, StringComparison.Ordinal);
        if (OperatingSystem.IsLinux())
        {
            Assert.Contains("LinuxBatched", value, StringComparison.Ordinal);
            Assert.Contains("GSO on", value, StringComparison.Ordinal);
        }
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Doctor_SaysWhetherTheIoUringBackendRuns()
    {
        var (exit, output, error) = await Cli.RunAsync("doctor", "--json");
        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var probe = document.RootElement.GetProperty("findings").EnumerateArray()
            .Single(f => f.GetProperty("check").GetString() == "salvo io_uring backend");
        var disabled = File.ReadAllText("/proc/sys/kernel/io_uring_disabled").Trim() != "0";
        Assert.Equal(disabled ? "info" : "ok", probe.GetProperty("status").GetString());
        Assert.StartsWith(disabled ? "falls back to LinuxBatched" : "runs", probe.GetProperty("value").GetString(), StringComparison.Ordinal);
    }
}
