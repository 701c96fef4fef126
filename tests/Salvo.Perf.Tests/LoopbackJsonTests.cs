using System.Text.Json;

namespace Salvo.Perf.Tests;

[Collection(WholeProcessCollection.Name)]
public sealed class LoopbackJsonTests
{
    private static readonly string[] ResultFields =
    [
        "method", "payloadBytes", "datagramsPerSecond", "gbitsPerSecond", "senderCpuPercent", "receiverCpuPercent",
        "allocatedBytesPerDatagram", "lossPercent", "gcCount", "ratioToSocket", "spreadPercent",
    ];

    private static readonly string[] EnvironmentFields = ["os", "kernel", "cpuModel", "cores", "dotnetVersion"];

    [Fact]
    public async Task Json_TinyRun_HasTheStableFieldNames()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-t", "0.2", "--warmup", "0.05", "-l", "64", "--repeat", "1", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var root = document.RootElement;
        Assert.Equal("loopback", root.GetProperty("command").GetString());
        foreach (var field in EnvironmentFields)
        {
            Assert.True(root.GetProperty("environment").TryGetProperty(field, out _), $"environment.{field} is missing");
        }

        var results = root.GetProperty("results").EnumerateArray().ToList();
        Assert.Equal(["naive", "socket", "salvo", "salvo-gso"], results.Select(r => r.GetProperty("method").GetString()));
        foreach (var result in results)
        {
            foreach (var field in ResultFields)
            {
                Assert.True(result.TryGetProperty(field, out _), $"results[].{field} is missing");
            }

            Assert.Equal(64, result.GetProperty("payloadBytes").GetInt32());
            // A 0.2 s point on a busy machine may see little arrive, but something must have been sent.
            Assert.True(result.GetProperty("datagramsPerSecond").GetDouble() >= 0, result.GetRawText());
        }

        Assert.Equal(1.0, results.Single(r => r.GetProperty("method").GetString() == "socket").GetProperty("ratioToSocket").GetDouble(), 9);
        Assert.Equal(4, root.GetProperty("samples").GetArrayLength());
        Assert.All(root.GetProperty("samples").EnumerateArray(), sample => Assert.True(sample.GetProperty("sent").GetInt64() > 0, sample.GetRawText()));
    }

    [Fact]
    public async Task Json_SyncMethods_ReportNoAllocationPerDatagram()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-t", "0.3", "--warmup", "0.1", "-l", "256", "--repeat", "1", "--methods", "socket,salvo", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        foreach (var result in document.RootElement.GetProperty("results").EnumerateArray())
        {
            // Per-thread counters. A receive timeout allocates its exception (a few hundred bytes) when the
            // sender is descheduled for 20 ms on a loaded host; over 10,000+ datagrams that stays far below
            // one byte per datagram, while any per-datagram allocation would be 24 bytes or more.
            if (result.GetProperty("datagramsPerSecond").GetDouble() * 0.3 > 10_000)
            {
                Assert.True(result.GetProperty("allocatedBytesPerDatagram").GetDouble() < 1, result.GetRawText());
            }
        }
    }

    [Fact]
    public async Task JsonStream_EmitsOneEventPerPointThenTheSummary()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-t", "0.1", "--warmup", "0.05", "-l", "64", "--repeat", "1", "--methods", "socket", "--json-stream");

        Assert.True(exit == 0, error);
        var lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        using var point = JsonDocument.Parse(lines[0]);
        Assert.Equal("point", point.RootElement.GetProperty("event").GetString());
        using var summary = JsonDocument.Parse(lines[1]);
        Assert.Equal("loopback", summary.RootElement.GetProperty("command").GetString());
    }

    [Fact]
    public async Task Text_NotATerminal_PrintsPlainLinesAndTheTable()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-t", "0.1", "--warmup", "0.05", "-l", "64", "--repeat", "1", "--methods", "socket,salvo");

        Assert.True(exit == 0, error);
        Assert.Contains("[  1/2]", output, StringComparison.Ordinal);
        Assert.Contains("vs socket", output, StringComparison.Ordinal);
        Assert.DoesNotContain("\u001b[", output, StringComparison.Ordinal);
    }
}
