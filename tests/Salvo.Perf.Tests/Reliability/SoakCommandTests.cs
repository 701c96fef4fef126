using System.Text.Json;

namespace Salvo.Perf.Tests.Reliability;

/// <summary><c>salvo soak</c>: a short run samples every second, carries the load, and judges.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class SoakCommandTests
{
    [RequiresFact(Requirement.Linux)]
    public async Task Soak_ShortRun_SamplesEachSecondAndRefusesToJudgeWithoutFailing()
    {
        var (exit, output, error) = await Cli.RunAsync("soak", "-t", "3", "-r", "200", "-c", "2", "--json");

        var report = JsonDocument.Parse(output).RootElement;
        Assert.True(exit == 0, $"exit {exit}: {error}");
        Assert.Equal("too short", report.GetProperty("verdict").GetString());
        Assert.StartsWith("too short to judge growth: needs >= 15 s", report.GetProperty("rule").GetString(), StringComparison.Ordinal);
        Assert.Empty(report.GetProperty("trends").EnumerateArray());
        Assert.Equal(3, report.GetProperty("samples").GetArrayLength());
        var last = report.GetProperty("samples")[2];
        Assert.True(last.GetProperty("workingSetBytes").GetInt64() > 0);
        Assert.True(last.GetProperty("handles").GetInt32() > 0);
        Assert.True(last.GetProperty("threads").GetInt32() > 0);
        var traffic = report.GetProperty("traffic");
        Assert.True(traffic.GetProperty("datagramsSent").GetInt64() > 0);
        Assert.True(traffic.GetProperty("requests").GetInt64() > 0);
        Assert.True(traffic.GetProperty("connections").GetInt64() > 0);
        Assert.Equal(0, traffic.GetProperty("connectionFailures").GetInt64());
    }
}
