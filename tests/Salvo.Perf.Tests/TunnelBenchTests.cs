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

        var (mbps, loss, retransmits) = BenchTools.ParseIperf(Json);

        Assert.Equal(200, mbps, precision: 6);
        Assert.Equal(12.5, loss, precision: 6);
        Assert.Equal(0, retransmits);
    }

    [Fact]
    public void ParseIperf_Tcp_ReadsTheSendersRetransmits()
    {
        const string Json = """
            {"start":{},"intervals":[],"end":{"sum_sent":{"bits_per_second":4.1e8,"retransmits":27855,"sender":true},
             "sum_received":{"bits_per_second":4.0e8,"sender":true}}}
            """;

        var (mbps, _, retransmits) = BenchTools.ParseIperf(Json);

        Assert.Equal(400, mbps, precision: 6);
        Assert.Equal(27_855, retransmits);
    }

    [Fact]
    public void Interop_PoolsEachSendingWayFromBothTunnels()
    {
        // Salvo sends A to B in "salvo <-> wireguard-go" and B to A in "wireguard-go <-> salvo".
        var paths = new[]
        {
            Path("salvo <-> wireguard-go", tcp: [300, 310], retransmits: [9_000, 9_100], reverse: [650, 660], reverseRetransmits: [800, 810]),
            Path("wireguard-go <-> salvo", tcp: [640, 630], retransmits: [700, 720], reverse: [320, 330], reverseRetransmits: [9_200, 9_300]),
        };

        var interop = TunnelBenchInterop.From(paths);

        Assert.NotNull(interop);
        Assert.Equal(315, interop.SalvoSendsMbps, precision: 6);
        Assert.Equal(9_150, interop.SalvoSendsRetransmits, precision: 6);
        Assert.Equal(645, interop.WireGuardGoSendsMbps, precision: 6);
        Assert.Equal(760, interop.WireGuardGoSendsRetransmits, precision: 6);
    }

    [Fact]
    public void Interop_WithoutBothInteropTunnels_IsNull() =>
        Assert.Null(TunnelBenchInterop.From([Path("salvo <-> wireguard-go", tcp: [300], retransmits: [1], reverse: [600], reverseRetransmits: [1])]));

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
            [.. BenchLab.Paths.Select((p, i) => new TunnelBenchPath(p.Name, 1000 + i, 500, 1.5, 300, [1000 + i], [500], [300], TcpRetransmits: 27_855, TcpReverseMbps: 669))],
            Interop: new TunnelBenchInterop(345, 27_855, 669, 8_789));
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
        Assert.Contains(lines, l => l.StartsWith("path", StringComparison.Ordinal) && l.Contains("TCP A->B Mbit/s", StringComparison.Ordinal) && l.Contains("TCP B->A Mbit/s", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.StartsWith("salvo <-> wireguard-go", StringComparison.Ordinal) && l.Contains("27,855", StringComparison.Ordinal) && l.Contains("669", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("salvo -> wireguard-go 345 Mbit/s, 27,855 retransmits per run; wireguard-go -> salvo 669 Mbit/s, 8,789 retransmits per run", StringComparison.Ordinal));
    }

    private static TunnelBenchPath Path(string name, double[] tcp, double[] retransmits, double[] reverse, double[] reverseRetransmits) =>
        new(name, Spread.Of(tcp).Median, 0, 0, 0, tcp, [], [], TcpRetransmitSamples: retransmits, TcpReverseSamples: reverse, TcpReverseRetransmitSamples: reverseRetransmits);
}
