using System.Text.Json;

namespace Salvo.Perf.Tests;

/// <summary>The workers axis of <c>salvo loopback</c>: a DatagramServer per worker count.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class WorkersAxisTests
{
    [Fact]
    public async Task Workers_AddAServerMethodPerCount_EachReceivingDatagrams()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-m", "salvo", "--workers", "1,2", "-t", "0.5", "--warmup", "0.2", "-l", "512", "--repeat", "1", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var samples = document.RootElement.GetProperty("samples").EnumerateArray().ToList();
        Assert.Equal(["salvo", "server-w1", "server-w2"], samples.Select(s => s.GetProperty("method").GetString()));
        Assert.All(samples, s => Assert.True(s.GetProperty("received").GetInt64() > 0, s.GetRawText()));
    }

    [Theory]
    [InlineData("0")]
    [InlineData("two")]
    [InlineData("1,2000")]
    public async Task InvalidWorkerCount_FailsNamingTheOption(string value)
    {
        var (exit, _, error) = await Cli.RunAsync("loopback", "--workers", value);
        Assert.Equal(2, exit);
        Assert.Contains("--workers", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ServerMethod_CanBeNamedDirectly()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-m", "server-w2", "-t", "0.2", "--warmup", "0.05", "-l", "64", "--repeat", "1", "--json");
        Assert.True(exit == 0, error);
        Assert.Contains("\"server-w2\"", output, StringComparison.Ordinal);
    }
}
