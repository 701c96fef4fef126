using System.Runtime.Versioning;
using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.Tests;

/// <summary>The AF_XDP receive checks' drops as the server's reports show them: under the summary table and in the JSON side.</summary>
[SupportedOSPlatform("linux")]
public sealed class FrameDropReportTests
{
    [Fact]
    public void ByReason_NamesEveryReason_ZerosIncluded()
    {
        var byReason = FrameDropReport.ByReason(default);

        Assert.Equal(Enum.GetNames<FrameDropReason>().Order(), byReason.Keys.Order());
        Assert.All(byReason.Values, count => Assert.Equal(0, count));
        Assert.Equal("0", FrameDropReport.Describe(default(FrameDropCounts)));
    }

    [Fact]
    public void Summary_OfAnAfXdpReceiver_PrintsItsDropsByReason()
    {
        using var output = new StringWriter();
        var console = new CliConsole(output, TextWriter.Null, isTerminal: false);
        var drops = FrameDropReport.ByReason(default);
        drops[nameof(FrameDropReason.MartianSource)] = 2;
        drops[nameof(FrameDropReason.BadUdpChecksum)] = 1;
        var receiver = new SideReport("receiver", 1, 10, 1000, 8000, 10, Backend: DatagramBackend.AfXdp, FrameDrops: drops);

        TrafficReports.PrintSummary(console, receiver, new SideReport("sender", 1, 10, 1000, 8000, 10));

        var text = output.ToString();
        Assert.Contains("receiver frames dropped by the AF_XDP receive checks: 3 (", text, StringComparison.Ordinal);
        Assert.Contains("MartianSource 2", text, StringComparison.Ordinal);
        Assert.Contains("BadUdpChecksum 1", text, StringComparison.Ordinal);
        Assert.DoesNotContain("sender frames dropped", text, StringComparison.Ordinal);
    }

    [Fact]
    public void ServerJson_CarriesTheDropsByReason_AndOmitsThemOffAfXdp()
    {
        var drops = FrameDropReport.ByReason(default);
        drops[nameof(FrameDropReason.VlanTagged)] = 4;
        var afXdp = new SideReport("receiver", 1, 10, 1000, 8000, 10, Backend: DatagramBackend.AfXdp, FrameDrops: drops);
        var kernel = afXdp with { Backend = DatagramBackend.LinuxBatched, FrameDrops = null };

        using var withDrops = JsonDocument.Parse(JsonSerializer.Serialize(afXdp, PerfJson.Compact.SideReport));
        using var without = JsonDocument.Parse(JsonSerializer.Serialize(kernel, PerfJson.Compact.SideReport));

        Assert.Equal(4, withDrops.RootElement.GetProperty("frameDrops").GetProperty("VlanTagged").GetInt64());
        Assert.Equal(0, withDrops.RootElement.GetProperty("frameDrops").GetProperty("MartianSource").GetInt64());
        Assert.False(without.RootElement.TryGetProperty("frameDrops", out var value) && value.ValueKind != JsonValueKind.Null);
    }
}
