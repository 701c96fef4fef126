using System.Text.Json;

namespace Salvo.Perf.Tests;

/// <summary>The commands that run both ends on this host take -B ::1 and really run over IPv6 loopback.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class Ipv6LoopbackTests
{
    [Fact]
    public async Task Loopback_BindIpv6_MeasuresOverIpv6()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-B", "::1", "-t", "0.2", "--warmup", "0.05", "-l", "64", "--repeat", "1", "-m", "socket,salvo", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal("::1", document.RootElement.GetProperty("settings").GetProperty("address").GetString());
        Assert.All(document.RootElement.GetProperty("samples").EnumerateArray(), sample =>
            Assert.True(sample.GetProperty("received").GetInt64() > 0, sample.ToString()));
    }

    [Fact]
    public async Task Rr_BindIpv6_InProcessResponderAnswersOverIpv6()
    {
        var (exit, output, error) = await Cli.RunAsync("rr", "-B", "::1", "-t", "0.3", "--warmup", "0.05", "--warmup-jit-idle", "0", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal("::1", document.RootElement.GetProperty("settings").GetProperty("address").GetString());
        Assert.True(document.RootElement.GetProperty("result").GetProperty("completed").GetInt64() > 0, output);
    }

    [Fact]
    public async Task Connections_BindIpv6_EveryConnectionIsMadeAndEchoes()
    {
        var (exit, output, error) = await Cli.RunAsync("connections", "-B", "::1", "-n", "50", "--active", "10", "-r", "200", "-t", "1", "--settle", "10", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal("::1", document.RootElement.GetProperty("settings").GetProperty("address").GetString());
        var result = document.RootElement.GetProperty("result");
        Assert.Equal(50, result.GetProperty("connected").GetInt32());
        Assert.Equal(50, result.GetProperty("serverConnections").GetInt32());
        Assert.True(result.GetProperty("messagesEchoed").GetInt64() > 0, output);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Soak_BindIpv6_CarriesEveryLoadOverIpv6()
    {
        var (exit, output, error) = await Cli.RunAsync("soak", "-B", "::1", "-t", "3", "-r", "200", "-c", "2", "--json");

        // Under 15 s the run is too short to judge memory: exit 0 with that verdict, never 3.
        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal("too short", document.RootElement.GetProperty("verdict").GetString());
        Assert.Equal("::1", document.RootElement.GetProperty("address").GetString());
        var traffic = document.RootElement.GetProperty("traffic");
        Assert.True(traffic.GetProperty("datagramsEchoed").GetInt64() > 0, output);
        Assert.True(traffic.GetProperty("requests").GetInt64() > 0, output);
        Assert.True(traffic.GetProperty("connections").GetInt64() > 0, output);
        Assert.Equal(0, traffic.GetProperty("connectionFailures").GetInt64());
    }

    [Theory]
    [InlineData("loopback")]
    [InlineData("rr")]
    [InlineData("connections")]
    [InlineData("soak")]
    public async Task Bind_NotALoopbackAddress_RefusedNamingTheOption(string command)
    {
        var (exit, _, error) = await Cli.RunAsync(command, "-B", "192.0.2.1");

        Assert.Equal(2, exit);
        Assert.Contains("-B/--bind: 192.0.2.1 is not a loopback address", error, StringComparison.Ordinal);
    }
}
