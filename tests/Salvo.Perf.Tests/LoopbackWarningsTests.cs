using System.Text.Json;
using System.Text.RegularExpressions;
using Salvo.Perf.Cli;
using Salvo.Perf.Loopback;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Tests;

/// <summary>What the loopback report says about figures that are not to be trusted: no spread, a wide spread, a collapsed baseline, a host whose load moved.</summary>
public sealed class LoopbackWarningsTests
{
    private const string QuietLoad = "0.10 0.10 0.10";

    [Fact]
    public void Summarize_OneRepetition_HasNoSpread()
    {
        var result = Assert.Single(LoopbackResult.Summarize([Sample("socket", 64, 1, 100_000)], LoopbackMethods.All));

        object? spread = result.SpreadPercent;
        Assert.Null(spread);
    }

    [Fact]
    public void Text_OneRepetition_ShowsNoSpreadRatherThanZero()
    {
        var output = Print(Report(1, QuietLoad, Sample("socket", 64, 1, 100_000, lossPercent: 10)));

        Assert.Equal("-", Cell(output, "socket", "spread"));
        Assert.Contains("no spread with one repetition", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Text_Table_SaysTheRateIsCountedAtTheReceiver_AndGivesBothRatios()
    {
        var output = Print(Report(1, QuietLoad,
            Sample("naive", 64, 1, 50_000), Sample("socket", 64, 1, 100_000), Sample("salvo", 64, 1, 300_000)));

        Assert.Contains("received dgram/s", output, StringComparison.Ordinal);
        Assert.Contains("counted at the receiver", output, StringComparison.Ordinal);
        var salvo = Row(output, "salvo ");
        Assert.Contains("6.00x", salvo, StringComparison.Ordinal);
        Assert.Contains("3.00x", salvo, StringComparison.Ordinal);
        Assert.True(Header(output).IndexOf("vs naive", StringComparison.Ordinal) < Header(output).IndexOf("vs socket", StringComparison.Ordinal), Header(output));
    }

    [Fact]
    public void Text_SpreadOver25Percent_IsWarned()
    {
        var output = Print(Report(3, QuietLoad,
            Sample("socket", 64, 1, 100_000), Sample("socket", 64, 2, 140_000), Sample("socket", 64, 3, 100_000)));

        Assert.Contains("warning: spread over 25 %", output, StringComparison.Ordinal);
        Assert.Contains("socket 64 B (40 %)", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Text_SteadyRepetitionsOnAQuietHost_WarnNothing()
    {
        var output = Print(Report(3, QuietLoad,
            Sample("socket", 64, 1, 100_000), Sample("socket", 64, 2, 101_000), Sample("socket", 64, 3, 99_000),
            Sample("salvo", 64, 1, 300_000), Sample("salvo", 64, 2, 301_000), Sample("salvo", 64, 3, 299_000)), loadAtEnd: "0.20 0.12 0.10");

        Assert.DoesNotContain("warning", output, StringComparison.Ordinal);
        Assert.DoesNotContain("collapsed", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Text_LoadAverageThatMovedDuringTheRun_IsWarned()
    {
        var output = Print(Report(1, QuietLoad, Sample("socket", 64, 1, 100_000)), loadAtEnd: "6.00 2.00 1.00");

        Assert.Contains("warning: the load average moved during the run", output, StringComparison.Ordinal);
        Assert.Contains("0.10", output, StringComparison.Ordinal);
        Assert.Contains("6.00", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Text_BaselineThatLostFarMoreThanTheOthers_IsCalledCollapsedBesideItsRatio()
    {
        // The report that prompted this: socket at 65,000 B got 3,713 dgram/s, so salvo-gso read 41.22x.
        var output = Print(Report(1, QuietLoad,
            Sample("socket", 1380, 1, 400_000, lossPercent: 1), Sample("salvo-gso", 1380, 1, 1_200_000, lossPercent: 1),
            Sample("socket", 65000, 1, 3_713, lossPercent: 96), Sample("salvo-gso", 65000, 1, 153_050, lossPercent: 2)));

        Assert.Contains("41.22x (socket collapsed)", Row(output, "salvo-gso", "65,000"), StringComparison.Ordinal);
        Assert.DoesNotContain("collapsed", Row(output, "salvo-gso", "1,380"), StringComparison.Ordinal);
        Assert.Contains("socket at 65,000 B", output, StringComparison.Ordinal);
    }

    [Fact]
    public void Text_BaselineFarSlowerThanItsSizePredicts_IsCalledCollapsed()
    {
        // No loss, but 65,000-byte datagrams moving fewer bytes per second than 1,380-byte ones did (a starved sender).
        var output = Print(Report(1, QuietLoad,
            Sample("socket", 1380, 1, 400_000), Sample("salvo", 1380, 1, 600_000),
            Sample("socket", 65000, 1, 2_000), Sample("salvo", 65000, 1, 90_000)));

        Assert.Contains("(socket collapsed)", Row(output, "salvo ", "65,000"), StringComparison.Ordinal);
        Assert.DoesNotContain("collapsed", Row(output, "salvo ", "1,380"), StringComparison.Ordinal);
    }

    [Fact]
    public void Json_CarriesTheSameFlagsAsFields()
    {
        var report = Report(3, QuietLoad,
            Sample("naive", 65000, 1, 60_000), Sample("naive", 65000, 2, 60_000), Sample("naive", 65000, 3, 60_000),
            Sample("socket", 65000, 1, 3_713, lossPercent: 96), Sample("socket", 65000, 2, 3_713, lossPercent: 96), Sample("socket", 65000, 3, 3_713, lossPercent: 96),
            Sample("salvo", 65000, 1, 100_000), Sample("salvo", 65000, 2, 150_000), Sample("salvo", 65000, 3, 100_000)) with { LoadAverageAtEnd = "6.00 2.00 1.00" };

        using var document = JsonDocument.Parse(JsonSerializer.Serialize(report, PerfJson.Indented.LoopbackReport));

        var root = document.RootElement;
        Assert.True(root.GetProperty("loadAverageChanged").GetBoolean());
        Assert.Equal("6.00 2.00 1.00", root.GetProperty("loadAverageAtEnd").GetString());
        Assert.Equal(3, root.GetProperty("warnings").GetArrayLength());
        var salvo = root.GetProperty("results").EnumerateArray().Single(r => r.GetProperty("method").GetString() == "salvo");
        Assert.True(salvo.GetProperty("wideSpread").GetBoolean());
        Assert.True(salvo.GetProperty("socketBaselineCollapsed").GetBoolean());
        Assert.False(salvo.GetProperty("naiveBaselineCollapsed").GetBoolean());
        Assert.Equal(100_000 / 60_000.0, salvo.GetProperty("ratioToNaive").GetDouble(), 9);
    }

    [Fact]
    public void Json_OneRepetition_SpreadIsNullNotZero()
    {
        var report = Report(1, QuietLoad, Sample("socket", 64, 1, 100_000));

        using var document = JsonDocument.Parse(JsonSerializer.Serialize(report, PerfJson.Indented.LoopbackReport));

        var result = document.RootElement.GetProperty("results")[0];
        Assert.Equal(JsonValueKind.Null, result.GetProperty("spreadPercent").ValueKind);
        Assert.False(result.GetProperty("wideSpread").GetBoolean());
    }

    private static LoopbackSample Sample(string method, int payload, int repetition, double received, double lossPercent = 0)
    {
        var sent = (long)(received / (1 - (lossPercent / 100)));
        return new(method, payload, repetition, received, received * payload * 8 / 1e9, sent, 50, 50, 100, 0, 0, sent, (long)received, lossPercent, 0);
    }

    private static LoopbackReport Report(int repetitions, string loadAtStart, params LoopbackSample[] samples)
    {
        var methods = samples.Select(s => s.Method).Distinct().ToArray();
        var sizes = samples.Select(s => s.PayloadBytes).Distinct().ToArray();
        var environment = TestHost.Environment(loadAtStart);
        var settings = new LoopbackSettings(methods, sizes, 1.5, 0.3, repetitions, true, 0, 1, 4 << 20, null, "127.0.0.1");
        return new LoopbackReport("loopback", environment, settings, LoopbackResult.Summarize(samples, LoopbackMethods.All), samples, loadAtStart);
    }

    private static string Print(LoopbackReport report, string? loadAtEnd = null)
    {
        using var output = new StringWriter();
        LoopbackCommand.Print(new CliConsole(output, TextWriter.Null, isTerminal: false), loadAtEnd is null ? report : report with { LoadAverageAtEnd = loadAtEnd });
        return output.ToString();
    }

    // Cells are padded apart by two spaces or more; no header or value has two spaces inside.
    private static string Cell(string output, string method, string column) =>
        Regex.Split(Row(output, method), @" {2,}")[Array.IndexOf(Regex.Split(Header(output), @" {2,}"), column)];

    private static string Header(string output) => output.Split('\n').First(l => l.StartsWith("method", StringComparison.Ordinal));

    private static string Row(string output, string method, string payload = "") =>
        output.Split('\n').First(l => l.StartsWith(method, StringComparison.Ordinal) && l.Contains(payload, StringComparison.Ordinal));
}
