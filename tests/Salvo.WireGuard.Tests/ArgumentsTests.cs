namespace Salvo.WireGuard.Tests;

/// <summary>The daemon's few verbs, parsed by hand: wireguard-go's <c>[-f] IFACE</c>, <c>up CONFIG</c> and <c>show</c>.</summary>
public sealed class ArgumentsTests
{
    [Theory]
    [InlineData(new[] { "wg0" }, "wg0", false)]
    [InlineData(new[] { "-f", "wg0" }, "wg0", true)]
    [InlineData(new[] { "wg0", "--foreground" }, "wg0", true)]
    public void Userspace_WireGuardGosCommandLine_GivesTheNameAndForeground(string[] args, string name, bool foreground)
    {
        Assert.Equal(new UserspaceArguments(name, foreground), UserspaceArguments.Parse(args));
    }

    [Fact]
    public void Up_NameAndTime_AreRead()
    {
        Assert.Equal(new UpArguments("wg0.conf", "salvo1", 2.5), UpArguments.Parse(["wg0.conf", "--name", "salvo1", "-t", "2.5"]));
    }

    [Theory]
    [InlineData(new[] { "--name" }, "up: --name needs a value")]
    [InlineData(new[] { "a.conf", "b.conf" }, "up: one CONFIG only; 'b.conf' is a second")]
    [InlineData(new[] { "a.conf", "--bogus" }, "up: unknown option '--bogus'")]
    [InlineData(new[] { "a.conf", "-t", "1", "--time", "2" }, "up: -t/--time given twice; give one")]
    [InlineData(new[] { "-t", "1" }, "up: CONFIG: give a wg/wg-quick configuration file")]
    public void Up_BadArguments_AreRefusedNamingThem(string[] args, string expected)
    {
        Assert.Equal(expected, Assert.Throws<DaemonException>(() => UpArguments.Parse(args)).Message);
    }

    [Theory]
    [InlineData("9586", "127.0.0.1:9586")]
    [InlineData("0.0.0.0:9586", "0.0.0.0:9586")]
    [InlineData("[::1]:9586", "[::1]:9586")]
    public void Up_MetricsListen_PortAloneIsLoopback(string value, string expected)
    {
        var metrics = UpArguments.Parse(["wg0.conf", "--metrics-listen", value, "--metrics-per-peer"]).Metrics;

        Assert.Equal(expected, metrics?.Listen.ToString());
        Assert.True(metrics?.PerPeer);
    }

    [Theory]
    [InlineData("localhost:9586")]
    [InlineData("127.0.0.1")]
    [InlineData("127.0.0.1:99999")]
    [InlineData("::1:9586")]
    [InlineData("-1")]
    public void Up_MetricsListen_BadValue_IsRefusedNamingTheOption(string value)
    {
        var error = Assert.Throws<DaemonException>(() => UpArguments.Parse(["wg0.conf", "--metrics-listen", value])).Message;

        Assert.Equal($"up: --metrics-listen: '{value}' is not PORT or ADDR:PORT (e.g. 9586, 127.0.0.1:9586, [::1]:9586)", error);
    }

    [Fact]
    public void Up_MetricsPerPeer_WithoutAnEndpoint_IsRefused()
    {
        Assert.Equal("up: --metrics-per-peer needs --metrics-listen ADDR:PORT", Assert.Throws<DaemonException>(() => UpArguments.Parse(["wg0.conf", "--metrics-per-peer"])).Message);
    }

    [Theory]
    [InlineData(new string[0], null, false)]
    [InlineData(new[] { "all" }, null, false)]
    [InlineData(new[] { "wg0", "--json" }, "wg0", true)]
    public void Show_AllOrOneInterface_WithOrWithoutJson(string[] args, string? name, bool json)
    {
        Assert.Equal(new ShowArguments(name, json), ShowArguments.Parse(args));
    }

    [Fact]
    public async Task Help_ListsEveryForm_AndExitsZero()
    {
        var (exit, output, _) = await Daemon.RunAsync("--help");

        Assert.Equal(0, exit);
        Assert.Contains("wireguard-salvo [-f|--foreground] IFACE", output, StringComparison.Ordinal);
        Assert.Contains("wireguard-salvo up CONFIG", output, StringComparison.Ordinal);
        Assert.Contains("--metrics-listen [ADDR:]PORT", output, StringComparison.Ordinal);
        Assert.Contains("--metrics-per-peer", output, StringComparison.Ordinal);
        Assert.Contains("wireguard-salvo show [IFACE|all] [--json]", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task NoArguments_IsAUsageError()
    {
        var (exit, _, error) = await Daemon.RunAsync();

        Assert.Equal(2, exit);
        Assert.Contains("wireguard-salvo: error: give an interface name or a command", error, StringComparison.Ordinal);
    }
}
