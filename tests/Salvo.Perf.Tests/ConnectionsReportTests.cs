using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Connections;
using Salvo.Perf.Measurement;

namespace Salvo.Perf.Tests;

/// <summary>What <c>salvo connections</c> prints about the rate it was asked for and the one it reached.</summary>
public sealed class ConnectionsReportTests
{
    [Fact]
    public void Text_RateFarBelowTheOneAsked_SaysBothAndWarns()
    {
        var output = Print(Report(asked: 100_000, sent: 342_185, echoed: 68_437));

        Assert.Contains("100,000 / 68,437 (68.4 %)", output, StringComparison.Ordinal);
        Assert.Contains("warning: echoed 68,437 messages/s, 68.4 % of the 100,000 asked", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Text_RateReached_WarnsNothing()
    {
        var output = Print(Report(asked: 100_000, sent: 500_000, echoed: 99_200));

        Assert.Contains("100,000 / 99,200 (99.2 %)", output, StringComparison.Ordinal);
        Assert.DoesNotContain("warning", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Text_Latencies_HaveThousandsSeparators()
    {
        var output = Print(Report(asked: 100_000, sent: 500_000, echoed: 99_200));

        Assert.Contains("1,234 / 23,457 / 1,200,000", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Json_SaysWhetherTheRateWasReached()
    {
        using var output = new StringWriter();
        ConnectionsCommand.Print(new CliConsole(output, TextWriter.Null, isTerminal: false) { Format = OutputFormat.Json }, Report(asked: 100_000, sent: 342_185, echoed: 68_437));

        using var document = JsonDocument.Parse(output.ToString());
        Assert.Equal(68.437, document.RootElement.GetProperty("achievedPercentOfRate").GetDouble(), 9);
        Assert.True(document.RootElement.GetProperty("rateNotReached").GetBoolean());
    }

    private static ConnectionsReport Report(double asked, long sent, double echoed)
    {
        var settings = new ConnectionsSettings(2000, 2000, asked, 5, 16, 512, "length", 1, false, "epoll", 1, "salvo", 0, "127.0.0.1");
        var memory = new MemorySnapshot(0, 0, 0, 0, 0, [0, 0, 0, 0, 0]);
        var result = new ConnectionsResult(1, 2000, 0, 0.5, 2000, sent, (long)(echoed * 5), 0, echoed, 0,
            new LatencySummary(1000, 2000, 1234.4, 5000, 23456.7, 30000, 40000, 1_200_000), memory, memory, memory, 100, 200, 0, 0,
            new Dictionary<string, long>(), 5, 8, 0, 0, 0);
        return new ConnectionsReport("connections", TestHost.Environment(), settings, result);
    }

    private static string Print(ConnectionsReport report)
    {
        using var output = new StringWriter();
        ConnectionsCommand.Print(new CliConsole(output, TextWriter.Null, isTerminal: false), report);
        return output.ToString();
    }
}
