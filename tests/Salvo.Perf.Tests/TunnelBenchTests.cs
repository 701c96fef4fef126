using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Tunnel;

namespace Salvo.Perf.Tests;

/// <summary><c>salvo tunnel bench</c>: what it asks for before running, the paths it builds, how it reads iperf3 and ping, and its table.</summary>
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

    [Fact]
    public void ParsePingMedian_ReadsTheMiddleEchoTimeInMicroseconds()
    {
        const string Output = "PING 198.19.0.2 56(84) bytes of data.\n64 bytes from 198.19.0.2: icmp_seq=1 ttl=64 time=0.900 ms\n" +
            "64 bytes from 198.19.0.2: icmp_seq=2 ttl=64 time=0.250 ms\n64 bytes from 198.19.0.2: icmp_seq=3 ttl=64 time=0.300 ms\n" +
            "rtt min/avg/max/mdev = 0.250/0.483/0.900/0.004 ms\n";

        Assert.Equal(300, BenchTools.ParsePingMedianMicroseconds(Output), precision: 6);
    }

    [Fact]
    public void ParseCpuSeconds_AddsUserAndSystemTicks_AfterACommandNameWithSpaces()
    {
        const string Stat = "4242 (wireguard) go) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 125 0 0 20 0 9 0 1000 0 0";

        Assert.Equal(3.75, ProcessCost.ParseCpuSeconds(Stat), precision: 6);
    }

    [Fact]
    public void ParsePerfCount_ReadsTheSyscallCount_OrNothingWhenNotCounted()
    {
        Assert.Equal(10969184, ProcessCost.ParsePerfCount("10969184,,raw_syscalls:sys_enter,3000000,100.00,,\n"));
        Assert.Null(ProcessCost.ParsePerfCount("<not supported>,,raw_syscalls:sys_enter,0,100.00,,\n"));
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

    [Fact]
    public void Paths_AreVethThenSalvoWithEachEndOfWireGuardGo()
    {
        Assert.Equal(
            ["veth", "salvo <-> salvo", "salvo <-> wireguard-go", "wireguard-go <-> salvo", "wireguard-go <-> wireguard-go", "salvo <-> salvo over TCP"],
            BenchLab.Paths.Select(p => p.Name));
        Assert.Equal(BenchLab.Paths.Count, BenchLab.Paths.Select(p => p.Target).Distinct().Count());
    }

    [Fact]
    public void Tunnels_HaveTheirOwnSubnetPortAndInterfaceNames()
    {
        var tunnels = BenchTunnel.All;

        Assert.Equal(tunnels.Count, tunnels.Select(t => t.Subnet).Distinct().Count());
        Assert.Equal(tunnels.Count, tunnels.Select(t => t.Port).Distinct().Count());
        var names = tunnels.SelectMany(t => new[] { t.DeviceName('a', "4194304"), t.DeviceName('b', "4194304") }).ToList();
        Assert.Equal(names.Count, names.Distinct().Count());
        // Linux's pid_max can be 4,194,304 (7 digits); an interface name holds 15 characters.
        Assert.All(names, name => Assert.InRange(name.Length, 1, 15));
    }

    [Fact]
    public void Tunnels_EachInteropPairPutsSalvoOnOneSideOnly()
    {
        var salvoToWireGuardGo = Assert.Single(BenchTunnel.All, t => t.EndA == TunnelEnd.Salvo && t.EndB == TunnelEnd.WireGuardGo);
        var wireGuardGoToSalvo = Assert.Single(BenchTunnel.All, t => t.EndA == TunnelEnd.WireGuardGo && t.EndB == TunnelEnd.Salvo);

        Assert.Equal(["swa7"], salvoToWireGuardGo.SalvoDeviceNames("7"));
        Assert.Equal(["wsb7"], wireGuardGoToSalvo.SalvoDeviceNames("7"));
        Assert.Equal(["sba7", "sbb7"], BenchTunnel.All[0].SalvoDeviceNames("7"));
        Assert.Empty(BenchTunnel.All.Single(t => t.EndA == TunnelEnd.WireGuardGo && t.EndB == TunnelEnd.WireGuardGo).SalvoDeviceNames("7"));
    }

    [Fact]
    public void Print_ShowsEveryPathSideBySide()
    {
        var environment = new EnvironmentInfo("Debian", "6.18", "CPU", 2, ".NET 10", "2026-11-24T14:00:00Z", "1.00 1.00 1.00");
        var report = new TunnelBenchReport(environment, 3, 3, "not pinned",
            [.. BenchLab.Paths.Select((p, i) => new TunnelBenchPath(p.Name, 1000 + i, 500, 1.5, 300, [1000 + i], [500], [300]))]);
        using var output = new StringWriter();
        using var error = new StringWriter();

        TunnelBenchCommand.Print(new CliConsole(output, error, isTerminal: false), report);

        var lines = output.ToString().Split('\n');
        Assert.Contains(lines, l => l.StartsWith("salvo <-> wireguard-go", StringComparison.Ordinal) && l.Contains("1,002", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("wireguard-go <-> salvo", StringComparison.Ordinal) && l.Contains("1,003", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("wireguard-go <-> wireguard-go", StringComparison.Ordinal) && l.Contains("1,004", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("salvo <-> salvo", StringComparison.Ordinal) && l.Contains("1,001", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("salvo <-> salvo over TCP", StringComparison.Ordinal) && l.Contains("1,005", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("path", StringComparison.Ordinal) && l.Contains("CPU s/Gbit", StringComparison.Ordinal) && l.Contains("calls/pkt", StringComparison.Ordinal));
    }
}
