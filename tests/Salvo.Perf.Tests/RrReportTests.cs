using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Rr;

namespace Salvo.Perf.Tests;

/// <summary>What <c>salvo rr</c> prints: round-trip columns that say so, and sockperf's half round trip beside them.</summary>
public sealed class RrReportTests
{
    private static readonly LatencySummary s_roundTrip = new(1000, 21, 20, 30, 40, 50, 60, 70);

    [Fact]
    public void Text_SockperfProtocol_PrintsRoundTripAndSockperfsHalfOfIt()
    {
        var output = Print(RrProtocols.Sockperf, format: OutputFormat.Text);

        Assert.Contains("RTT p50 us", output, StringComparison.Ordinal);
        Assert.Contains("RTT max us", output, StringComparison.Ordinal);
        Assert.Contains("RTT/2", output, StringComparison.Ordinal);
        Assert.Contains("avg 10.5, p50 10.0, p90 15.0, p99 20.0, p99.9 25.0, p99.99 30.0, max 35.0 us", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Text_SalvoProtocol_LabelsTheRoundTripOnly()
    {
        var output = Print(RrProtocols.Salvo, format: OutputFormat.Text);

        Assert.Contains("RTT p99 us", output, StringComparison.Ordinal);
        Assert.DoesNotContain("RTT/2", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Json_SockperfProtocol_HasTheHalfRoundTripToo()
    {
        using var document = JsonDocument.Parse(Print(RrProtocols.Sockperf, format: OutputFormat.Json));

        var result = document.RootElement.GetProperty("result");
        Assert.Equal(20, result.GetProperty("latency").GetProperty("p50Microseconds").GetDouble());
        Assert.Equal(10, result.GetProperty("halfRoundTripLatency").GetProperty("p50Microseconds").GetDouble());
    }

    private static string Print(string protocol, OutputFormat format)
    {
        var settings = new RrSettings(64, 64, 1, 1, 5, 0.5, 0, "127.0.0.1:11111", 1000, Protocol: protocol, Address: null);
        var result = new RrResult("closed-loop", 1, 1, 64, 64, 40_000, 200_000, 200_001, 0, 0, 0, 0, s_roundTrip);
        using var output = new StringWriter();
        RrCommand.Print(new CliConsole(output, TextWriter.Null, isTerminal: false) { Format = format },
            new RrReport("rr", TestHost.Environment(), settings, result));
        return output.ToString();
    }
}
