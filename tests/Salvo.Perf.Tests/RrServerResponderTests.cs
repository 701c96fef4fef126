using System.Text.Json;

namespace Salvo.Perf.Tests;

/// <summary><c>salvo rr --responder server</c>: round trips through a DatagramServer, with and without busy polling.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class RrServerResponderTests
{
    [Theory]
    [InlineData("0")]
    [InlineData("20")]
    public async Task ServerResponder_AnswersEveryRequest_AndReportsProcessCpu(string busyPoll)
    {
        var (exit, output, error) = await Cli.RunAsync("rr", "--responder", "server", "--busy-poll", busyPoll, "-P", "4", "-t", "1", "--warmup", "0.2", "--warmup-jit-idle", "0", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var result = document.RootElement.GetProperty("result");
        Assert.True(result.GetProperty("completed").GetInt64() > 0, output);
        Assert.Equal(0, result.GetProperty("malformed").GetInt64());
        Assert.True(result.GetProperty("processCpuPercent").GetDouble() > 0, output);
        Assert.Equal("server", document.RootElement.GetProperty("settings").GetProperty("responder").GetString());
        // Four requests in flight keep the one worker busy: with a spin, some arrive while it spins.
        var pickedUpBySpinning = result.GetProperty("busyPollDatagrams").GetInt64();
        if (busyPoll == "0")
        {
            Assert.Equal(0, pickedUpBySpinning);
        }
        else
        {
            Assert.True(pickedUpBySpinning > 0, output);
        }
    }

    [Theory]
    [InlineData("--responder", "thread")]
    [InlineData("--busy-poll", "-1")]
    public async Task InvalidResponderOptions_FailNamingTheOption(string option, string value)
    {
        var (exit, _, error) = await Cli.RunAsync("rr", option, value, "-t", "0.2");
        Assert.Equal(2, exit);
        Assert.Contains(option, error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BusyPollWithARemoteServer_FailsNamingTheOption()
    {
        // The remote server's workers are its own: busy polling is set where it runs (salvo server), not here.
        var (exit, _, error) = await Cli.RunAsync("rr", "--server", "127.0.0.1:9", "--busy-poll", "5", "-t", "0.2");
        Assert.Equal(2, exit);
        Assert.Contains("--busy-poll: applies to the in-process responder", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BusyPollAboveTheServersLimit_FailsAtStartNamingTheOption()
    {
        // DatagramServerOptions.BusyPoll allows at most 10 ms; the CLI must refuse more before it starts a server.
        var (exit, _, error) = await Cli.RunAsync("rr", "--busy-poll", "20000", "-t", "0.2");
        Assert.Equal(2, exit);
        Assert.Contains("--busy-poll", error, StringComparison.Ordinal);
    }
}
