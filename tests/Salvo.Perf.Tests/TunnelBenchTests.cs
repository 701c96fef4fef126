using Salvo.Perf.Tunnel;

namespace Salvo.Perf.Tests;

/// <summary><c>salvo tunnel bench</c>: what it asks for before running, and how it reads iperf3 and ping.</summary>
public sealed class TunnelBenchTests
{
    [Fact]
    public void Missing_NamesEachToolAndOneAptGetLine()
    {
        var missing = BenchTools.Missing(isRoot: false, hasTun: true, tool => tool is "ip" or "ping" ? "/usr/bin/" + tool : null);

        Assert.Contains(missing, m => m.StartsWith("root:", StringComparison.Ordinal));
        Assert.Contains("wireguard-go: not installed (package wireguard-go)", missing);
        Assert.Contains("wg: not installed (package wireguard-tools)", missing);
        Assert.Contains("iperf3: not installed (package iperf3)", missing);
        Assert.Equal("install with: sudo apt-get install iperf3 wireguard-go wireguard-tools", missing[^1]);
    }

    [Fact]
    public void Missing_NothingWhenRootAndEveryToolIsThere() =>
        Assert.Empty(BenchTools.Missing(isRoot: true, hasTun: true, tool => "/usr/bin/" + tool));

    [Fact]
    public void ParseIperf_ReadsReceiverThroughputAndUdpLoss()
    {
        const string Json = """
            {"start":{},"intervals":[],"end":{"sum":{"bits_per_second":2.5e8,"lost_percent":12.5},
             "sum_sent":{"bits_per_second":2.5e8},"sum_received":{"bits_per_second":2.0e8}}}
            """;

        var (mbps, loss) = BenchTools.ParseIperf(Json);

        Assert.Equal(200, mbps, precision: 6);
        Assert.Equal(12.5, loss, precision: 6);
    }

    [Fact]
    public void ParseIperf_ErrorInJson_IsReportedNotRead()
    {
        var error = Assert.Throws<Salvo.Perf.Cli.CliException>(() => BenchTools.ParseIperf("""{"start":{},"intervals":[],"end":{},"error":"unable to connect to server"}"""));
        Assert.Contains("unable to connect to server", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ParsePing_ReadsTheAverageInMicroseconds()
    {
        const string Output = "50 packets transmitted, 50 received, 0% packet loss, time 512ms\nrtt min/avg/max/mdev = 0.021/0.307/1.032/0.004 ms\n";
        Assert.Equal(307, BenchTools.ParsePingAverageMicroseconds(Output), precision: 6);
    }

    [Theory]
    [InlineData("--time", "tunnel", "bench", "-t", "0")]
    [InlineData("--rounds", "tunnel", "bench", "--rounds", "10")]
    public async Task BadOption_IsRejectedNamingIt(string expected, params string[] args)
    {
        var (exit, _, error) = await Cli.RunAsync(args);

        Assert.NotEqual(0, exit);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }
}
