using System.Net;
using System.Text.Json;
using System.Text.RegularExpressions;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.Tests.Output;

/// <summary>A run a stop signal ends early still prints what it measured, and says it was cut short.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class CutShortTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Client_StoppedMidTest_BothEndsPrintTheCountsSoFarMarkedCutShort(bool reverse)
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        using var written = new StringWriter();
        var output = TextWriter.Synchronized(written);
        using var error = new StringWriter();
        var console = new CliConsole(output, TextWriter.Synchronized(error), isTerminal: false) { Format = OutputFormat.JsonStream };
        var settings = new ClientSettings($"127.0.0.1:{server.Port}", 512, 2_000_000, 30, 1, reverse);
        using var stop = new CancellationTokenSource();
        string Written()
        {
            // The synchronized writer locks itself for every write.
            lock (output)
            {
                return written.ToString();
            }
        }

        var run = ClientCommand.RunAsync(console, "127.0.0.1", server.Port, settings, IPAddress.Loopback, 0.25, 1, stop.Token);

        // Stop once the test has run two intervals (half a second): a stop before the server's ready has no counts to
        // print, and on a loaded machine the handshake alone can take longer than any fixed delay.
        for (var i = 0; i < 2400 && Regex.Count(Written(), "\"event\":\"interval\"") < 2; i++)
        {
            Assert.False(run.IsCompleted, $"{Written()} {error}");
            await Task.Delay(25);
        }

        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.WaitAsync(TimeSpan.FromSeconds(60)));
        using var document = JsonDocument.Parse(Written().Split('\n', StringSplitOptions.RemoveEmptyEntries)[^1]);
        var client = document.RootElement;
        Assert.True(client.GetProperty("cutShort").GetBoolean(), Written());
        var sent = client.GetProperty("sender");
        var received = client.GetProperty("receiver");
        Assert.True(sent.GetProperty("datagrams").GetInt64() > 0, Written());
        Assert.InRange(sent.GetProperty("seconds").GetDouble(), 0.5, 20);
        Assert.True(received.GetProperty("datagrams").GetInt64() > 0, Written());

        var report = await server.ReportAsync(1);
        Assert.True(report.GetProperty("cutShort").GetBoolean(), report.ToString());
        Assert.True(report.GetProperty("local").GetProperty("cutShort").GetBoolean(), report.ToString());
        Assert.DoesNotContain("rejected", server.Log, StringComparison.Ordinal);
    }

    [Fact]
    public void CutShortAfter_SaysHowLongTheTestRan()
    {
        Assert.Equal("cut short after 3.0 s", TrafficReports.CutShortAfter(3.04));
    }

    [Fact]
    public async Task Loopback_StoppedAfterAPoint_TheDocumentSaysCutShort()
    {
        using var written = new StringWriter();
        var output = TextWriter.Synchronized(written);
        using var error = new StringWriter();
        var console = new CliConsole(output, TextWriter.Synchronized(error), isTerminal: false);
        string Written()
        {
            // The synchronized writer locks itself for every write.
            lock (output)
            {
                return written.ToString();
            }
        }

        using var stop = new CancellationTokenSource();
        string[] args = ["loopback", "-m", "socket", "-l", "64", "-t", "0.2", "--warmup", "0.05", "--repeat", "50", "--json-stream"];

        var run = Task.Run(() => SalvoCli.RunAsync(args, console, stop.Token));
        for (var i = 0; i < 1200 && !Written().Contains("\"event\":\"point\"", StringComparison.Ordinal); i++)
        {
            Assert.False(run.IsCompleted, error.ToString());
            await Task.Delay(25);
        }

        await stop.CancelAsync();
        var exit = await run.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(CliException.CancelledExitCode, exit);
        var last = Written().Split('\n', StringSplitOptions.RemoveEmptyEntries)[^1];
        using var document = JsonDocument.Parse(last);
        Assert.Equal("loopback", document.RootElement.GetProperty("command").GetString());
        Assert.True(document.RootElement.GetProperty("cutShort").GetBoolean(), last);
    }
}
