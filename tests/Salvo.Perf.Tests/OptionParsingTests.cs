using System.Net;
using System.Net.Sockets;

namespace Salvo.Perf.Tests;

public sealed class OptionParsingTests
{
    [Theory]
    [InlineData("--bogus", "loopback", "--bogus")]
    [InlineData("flood", "flood")]
    [InlineData("-l/--length: 70000 bytes is over the UDP payload limit of 65,507 bytes", "loopback", "-l", "70000")]
    [InlineData("'abc'", "loopback", "-l", "64,abc")]
    [InlineData("--length", "client", "127.0.0.1", "-l", "70000")]
    [InlineData("-b/--bitrate", "client", "127.0.0.1", "-b", "fast")]
    [InlineData("--port", "server", "-p", "70000")]
    [InlineData("--port", "client", "127.0.0.1", "-p", "http")]
    [InlineData("carrier-pigeon", "loopback", "--methods", "socket,carrier-pigeon", "-t", "0.1")]
    [InlineData("--response", "rr", "--response", "65508")]
    [InlineData("--parallel-levels", "sweep", "--parallel-levels", "1,0")]
    [InlineData("--kind", "sweep", "--kind", "everything")]
    [InlineData("-m/--methods: an empty item in 'salvo,,socket'", "loopback", "-m", "salvo,,socket")]
    [InlineData("an empty item in '64,1380,'", "loopback", "-l", "64,1380,")]
    [InlineData("--workers: an empty item in '1,,2'", "loopback", "--workers", "1,,2")]
    public async Task BadInput_IsRejected_WithOneLineNamingTheProblem(string expected, params string[] args)
    {
        var (exit, _, error) = await Cli.RunAsync(args);

        Assert.NotEqual(0, exit);
        Assert.Contains(expected, error, StringComparison.Ordinal);
        AssertOneLineNoTrace(error);
    }

    [Theory]
    [InlineData("salvo: error: Unrecognized command or argument 'frobnicate'. (see 'salvo --help')", "frobnicate")]
    [InlineData("salvo: error: --time: 'abc' is not a number. (see 'salvo loopback --help')", "loopback", "-t", "abc")]
    [InlineData("salvo: error: --parallel: 'x' is not a whole number. (see 'salvo rr --help')", "rr", "-P", "x")]
    [InlineData("salvo: error: Required argument missing for command: 'up'. (see 'salvo tunnel up --help')", "tunnel", "up")]
    public async Task ParseErrors_SayWhatIsWrong_InTheToolsWords_AndTheFullCommandForHelp(string expected, params string[] args)
    {
        var (exit, _, error) = await Cli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal(expected, error.TrimEnd());
    }

    [Fact]
    public async Task Warmup_Zero_MeansNone_AndIsAccepted()
    {
        // A second, not 0.2: with no warm-up the window also holds the responder's start, which on a loaded host
        // (load average 16-24 on 2 cores, tests running beside it) took over 0.2 s and the run had nothing answered.
        var (exit, output, error) = await Cli.RunAsync("rr", "-t", "1", "--warmup", "0", "--warmup-jit-idle", "0", "--json");

        Assert.True(exit == 0, error);
        Assert.Contains("\"warmupSeconds\": 0", output, StringComparison.Ordinal);
        var (refused, _, tooShort) = await Cli.RunAsync("rr", "-t", "0.2", "--warmup", "0.001");
        Assert.Equal(2, refused);
        Assert.Contains("--warmup", tooShort, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Server_PortInUse_FailsWithOneLineNamingThePort()
    {
        using var holder = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        holder.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var port = ((IPEndPoint)holder.LocalEndPoint!).Port;

        var (exit, _, error) = await Cli.RunAsync("server", "-p", port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--one-off");

        Assert.Equal(1, exit);
        Assert.Contains("-p/--port", error, StringComparison.Ordinal);
        Assert.Contains("in use", error, StringComparison.Ordinal);
        AssertOneLineNoTrace(error);
    }

    [Fact]
    public async Task Client_NoServerListening_FailsWithOneLine()
    {
        int port;
        using (var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            port = ((IPEndPoint)probe.LocalEndPoint!).Port;
        }

        var (exit, _, error) = await Cli.RunAsync("client", "127.0.0.1", "-p", port.ToString(System.Globalization.CultureInfo.InvariantCulture), "-t", "1");

        Assert.Equal(1, exit);
        Assert.Contains("cannot reach salvo server", error, StringComparison.Ordinal);
        AssertOneLineNoTrace(error);
    }

    [Fact]
    public async Task Help_ListsEveryCommand()
    {
        var (exit, output, _) = await Cli.RunAsync("--help");

        Assert.Equal(0, exit);
        foreach (var command in new[] { "loopback", "server", "client", "rr", "sweep", "doctor", "connections", "impair", "soak", "transport", "tunnel" })
        {
            Assert.Contains($"  {command} ", output, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("loopback")]
    [InlineData("server")]
    [InlineData("client", "127.0.0.1")]
    public void Workers_HaveTheSameRangeOnEveryCommand(params string[] command)
    {
        var root = HelpTextTests.Root();

        Assert.Empty(root.Parse([.. command, "--workers", "1024"]).Errors);
        Assert.NotEmpty(root.Parse([.. command, "--workers", "1025"]).Errors);
        Assert.NotEmpty(root.Parse([.. command, "--workers", "0"]).Errors);
    }

    [Fact]
    public async Task LoopbackHelp_ExplainsPinning()
    {
        var (exit, output, _) = await Cli.RunAsync("loopback", "--help");

        Assert.Equal(0, exit);
        Assert.Contains("sched_setaffinity", output, StringComparison.Ordinal);
        Assert.Contains("--no-pin", output, StringComparison.Ordinal);
    }

    private static void AssertOneLineNoTrace(string error)
    {
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.DoesNotContain("   at ", error, StringComparison.Ordinal);
    }
}
