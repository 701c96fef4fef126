using System.Text.Json;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests.Reliability;

/// <summary><c>salvo impair</c> from the command line: option errors, and server/client through it.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class ImpairCommandTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [Theory]
    [InlineData("--drop", "1.5", "--drop")]
    [InlineData("--duplicate", "-0.1", "--duplicate")]
    [InlineData("--delay-ms", "5..1", "--delay-ms")]
    [InlineData("--delay-ms", "fast", "--delay-ms")]
    [InlineData("--listen", "127.0.0.1", "--listen")]
    [InlineData("--forward", "0.0.0.0:47010", "--forward")]
    [InlineData("--reorder-gap", "0", "--reorder-gap")]
    public async Task Impair_BadOption_FailsNamingTheOption(string option, string value, string named)
    {
        var (exit, _, error) = await Cli.RunAsync("impair", option, value, "-t", "0.1");

        Assert.Equal(CliException.UsageExitCode, exit);
        Assert.Contains(named, error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Soak_TooShortToJudge_FailsNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("soak", "-t", "2");

        Assert.Equal(CliException.UsageExitCode, exit);
        Assert.Contains("-t/--time: 2 seconds is outside the allowed range (at least 3, at most 86400)", error, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task ServerAndClientThroughImpair_ReceiverCountsEqualTheRelaysReport()
    {
        using var stop = new CancellationTokenSource();
        var serverOut = new LiveWriter();
        var server = Task.Run(() => SalvoCli.RunAsync(["server", "-p", "0", "-1"], new CliConsole(serverOut, new LiveWriter(), isTerminal: false), stop.Token));
        var port = Listening.Port(serverOut.WaitFor("listening on", Bound));

        // Same port number on 127.0.0.2: the client's UDP goes where its control connection went, through the relay.
        var relayOut = new LiveWriter();
        var relayError = new LiveWriter();
        using var stopRelay = new CancellationTokenSource();
        var relay = Task.Run(() => SalvoCli.RunAsync(
            ["impair", "--listen", $"127.0.0.2:{port}", "--forward", $"127.0.0.1:{port}", "--tcp", "--drop", "0.05", "--duplicate", "0.02",
             "--reorder", "0.03", "--delay-ms", "0..2", "--seed", "42", "-t", "120", "--json"],
            new CliConsole(relayOut, relayError, isTerminal: false), stopRelay.Token));
        relayError.WaitFor("listening on", Bound);

        var client = await Cli.RunAsync("client", "127.0.0.2", "-p", port, "-t", "1.5", "-b", "4M", "-l", "512", "--json");
        await stopRelay.CancelAsync();
        Assert.Equal(0, await relay.WaitAsync(Bound));
        Assert.True(client.ExitCode == 0, client.Error);
        Assert.Equal(0, await server.WaitAsync(Bound));

        var sender = JsonDocument.Parse(client.Out).RootElement.GetProperty("sender");
        var receiver = JsonDocument.Parse(client.Out).RootElement.GetProperty("receiver");
        var did = JsonDocument.Parse(relayOut.Text).RootElement.GetProperty("clientToServer");
        Assert.Equal(sender.GetProperty("datagrams").GetInt64(), did.GetProperty("received").GetInt64());
        Assert.Equal(did.GetProperty("forwarded").GetInt64(), receiver.GetProperty("datagrams").GetInt64());
        Assert.True(did.GetProperty("dropped").GetInt64() > 0);
        Assert.Equal(did.GetProperty("dropped").GetInt64(), receiver.GetProperty("lost").GetInt64());
        Assert.Equal(did.GetProperty("duplicated").GetInt64(), receiver.GetProperty("duplicates").GetInt64());
        Assert.Equal(did.GetProperty("reordered").GetInt64(), receiver.GetProperty("outOfOrder").GetInt64());
    }
}
