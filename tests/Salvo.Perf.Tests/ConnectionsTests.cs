using System.Globalization;
using System.Text.Json;

namespace Salvo.Perf.Tests;

/// <summary><c>salvo connections</c> end to end: shard processes, idle memory, traffic, the JSON document.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class ConnectionsTests
{
    // The one-second window proves nothing by itself on a busy machine (once, no echo arrived within it); the settle time
    // waits, bounded, for every echo, so the runs below can require all of them.
    private const string Settle = "30";

    [Theory]
    [InlineData("epoll", 1)]
    [InlineData("salvo", 1)]
    [InlineData("epoll", 4)]
    [InlineData("salvo", 4)]
    public async Task SmallRun_ConnectsEveryClient_EchoesTraffic_AndIdleConnectionsHoldNoBuffer(string client, int batch)
    {
        var (exit, output, error) = await Cli.RunAsync(
            "connections", "-n", "200", "--active", "50", "-r", "500", "-t", "1", "--client", client, "--batch", batch.ToString(CultureInfo.InvariantCulture),
            "--settle", Settle, "--json");

        if (client == "epoll" && !Salvo.Perf.Connections.EpollLoadClient.IsSupported)
        {
            Assert.NotEqual(0, exit);
            Assert.Contains("--client", error, StringComparison.Ordinal);
            return;
        }

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var settings = document.RootElement.GetProperty("settings");
        Assert.Equal(client, settings.GetProperty("client").GetString());
        Assert.Equal(batch, settings.GetProperty("batch").GetInt32());
        var result = document.RootElement.GetProperty("result");
        Assert.Equal(0, result.GetProperty("clientConnectionsClosed").GetInt64());
        Assert.Equal(0, result.GetProperty("malformedEchoes").GetInt64());
        Assert.Equal(200, result.GetProperty("connected").GetInt32());
        Assert.Equal(0, result.GetProperty("connectFailures").GetInt32());
        Assert.Equal(200, result.GetProperty("serverConnections").GetInt32());
        AssertEveryMessageCameBack(result, output);
        Assert.Equal(0, result.GetProperty("rentedBlocksWhenIdle").GetInt64());
        Assert.True(result.GetProperty("managedBytesPerIdleConnection").GetDouble() > 0);
        Assert.Empty(result.GetProperty("serverClosedByReason").EnumerateObject());
        Assert.Equal(0, result.GetProperty("serversWithInlineCompletions").GetInt32());
        // Echoing costs both sides CPU; a field left at zero would mean the shards' CPU never reached the report.
        Assert.True(result.GetProperty("serverCpuMicrosecondsPerMessage").GetDouble() > 0, output);
        Assert.True(result.GetProperty("clientCpuMicrosecondsPerMessage").GetDouble() > 0, output);
        foreach (var field in new[] { "messagesPerSecond", "latency", "idle", "afterTraffic", "pinnedBytes", "workingSetBytesPerIdleConnection" })
        {
            Assert.True(result.TryGetProperty(field, out _), $"result.{field} is missing");
        }
    }

    [Fact]
    public async Task PlainServer_Echoes_AndEachIdleConnectionHoldsItsReceiveBuffer()
    {
        var (exit, output, error) = await Cli.RunAsync("connections", "-n", "200", "--active", "50", "-r", "500", "-t", "1", "--server", "plain", "--settle", Settle, "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal("plain", document.RootElement.GetProperty("settings").GetProperty("server").GetString());
        var result = document.RootElement.GetProperty("result");
        Assert.Equal(200, result.GetProperty("serverConnections").GetInt32());
        AssertEveryMessageCameBack(result, output);
        Assert.Equal(0, result.GetProperty("malformedEchoes").GetInt64());
        Assert.Empty(result.GetProperty("serverClosedByReason").EnumerateObject());
        // The baseline's defining cost: a 4 KiB array per connection, held while the connection is idle.
        Assert.True(result.GetProperty("managedBytesPerIdleConnection").GetDouble() > 4096, output);
    }

    [Fact]
    public async Task InlineCompletions_ReachTheServerProcesses_AndTrafficStillEchoes()
    {
        var (exit, output, error) = await Cli.RunAsync("connections", "-n", "20", "--active", "20", "-r", "200", "-t", "1", "--inline-completions", "--settle", Settle, "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.True(document.RootElement.GetProperty("settings").GetProperty("inlineCompletions").GetBoolean());
        var result = document.RootElement.GetProperty("result");
        Assert.Equal(result.GetProperty("serverProcesses").GetInt32(), result.GetProperty("serversWithInlineCompletions").GetInt32());
        AssertEveryMessageCameBack(result, output);
    }

    [Fact]
    public async Task NegativeSettle_FailsNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("connections", "--settle", "-1");
        Assert.Equal(2, exit);
        Assert.Contains("--settle", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task MinSizeAboveMaxSize_FailsNamingBoth()
    {
        var (exit, _, error) = await Cli.RunAsync("connections", "-n", "1", "--min-size", "600", "--max-size", "100");
        Assert.NotEqual(0, exit);
        Assert.Contains("--min-size", error, StringComparison.Ordinal);
        Assert.Contains("--max-size", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UnknownClient_FailsNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("connections", "--client", "wrk");
        Assert.Equal(2, exit);
        Assert.Contains("--client", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UnknownFraming_FailsNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("connections", "--framing", "json");
        Assert.Equal(2, exit);
        Assert.Contains("--framing", error, StringComparison.Ordinal);
    }

    private static void AssertEveryMessageCameBack(JsonElement result, string output)
    {
        var sent = result.GetProperty("messagesSent").GetInt64();
        Assert.True(sent > 0, output);
        Assert.Equal(sent, result.GetProperty("messagesEchoed").GetInt64());
        Assert.Equal(0, result.GetProperty("messagesUnanswered").GetInt64());
    }
}
