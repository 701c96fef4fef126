using System.CommandLine;
using System.Globalization;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// <c>salvo tunnel bench</c>: iperf3 (one TCP stream each way, then UDP at 1,300 B) and ping through Salvo to Salvo, Salvo to
/// wireguard-go and back, wireguard-go to wireguard-go and the plain veth underneath, interleaved round by round,
/// medians side by side.
/// </summary>
internal static class TunnelBenchCommand
{
    private const string Placement = "not pinned: both namespaces, both tunnel ends and iperf3 share the host's CPUs";

    /// <summary>TCP payload per packet through a 1,420-byte tunnel MTU: 1,420 - 20 IPv4 - 20 TCP - 12 timestamp option.</summary>
    private const int TunnelMss = 1_368;

    /// <summary>TCP payload per packet on the 1,500-byte veth: 1,500 - 52.</summary>
    private const int VethMss = 1_448;

    /// <summary>Rates tried for the sustained UDP figure: the unlimited run's delivered rate, then four steps up or down.</summary>
    private const int SustainedSteps = 5;

    public static Command Create(CliConsole console)
    {
        var seconds = CommonOptions.Int("--time", "-t", "SECONDS", 3, 1, 60, "Seconds of each iperf3 run.");
        var rounds = CommonOptions.Int("--rounds", null, "COUNT", 3, 1, 9, "Interleaved rounds over the six paths; figures are medians over them.");
        var command = new Command("bench",
            "Measures throughput and latency through Salvo <-> Salvo, Salvo <-> wireguard-go (Salvo as either end), " +
            "wireguard-go <-> wireguard-go and the plain veth, " +
            "in two network namespaces (198.18.0.0/15): iperf3 TCP, iperf3 UDP 1,300 B, ping. Needs Linux, root, iproute2, " +
            "iperf3, ping, wireguard-go and wg; installs nothing and says what is missing.")
        {
            seconds, rounds,
        };
        command.SetAction(parse =>
        {
            CommonOptions.ApplyFormat(parse, console);
            if (!HostOs.IsLinux)
            {
                throw new CliException("bench: needs Linux (network namespaces, /dev/net/tun)");
            }

            var missing = BenchTools.Missing(HostOs.IsRoot, HostOs.HasTunDevice, BenchTools.Find);
            if (missing.Count > 0)
            {
                throw new CliException("bench: cannot run here:\n  " + string.Join("\n  ", missing), CliException.FailureExitCode);
            }

            var report = Run(console, parse.GetValue(seconds), parse.GetValue(rounds));
            Print(console, report);
            return 0;
        });
        return command;
    }

    private static TunnelBenchReport Run(CliConsole console, int seconds, int rounds)
    {
        var environment = EnvironmentInfo.Capture();
        var samples = BenchLab.Paths.ToDictionary(p => p.Name, _ => new PathSamples());
        using var lab = new BenchLab();
        foreach (var (name, target) in BenchLab.Paths)
        {
            // The first packets start each tunnel's handshake: they are not measured.
            var (exitCode, output) = BenchTools.RunIn(lab.HostA, "ping", ["-n", "-q", "-c", "3", "-i", "0.2", "-W", "2", target], timeoutSeconds: 15);
            if (exitCode != 0)
            {
                throw new CliException($"bench: the {name} path does not carry ping to {target}: {output.Trim()}", CliException.FailureExitCode);
            }
        }

        for (var round = 1; round <= rounds; round++)
        {
            foreach (var (name, target) in BenchLab.Paths)
            {
                console.Note($"bench: round {round}/{rounds}, {name}");
                var path = samples[name];
                var cost = ProcessCost.Start(lab.ProcessIdsOf(name), seconds);
                var tcp = Iperf(lab, target, seconds, ["-t", Text(seconds)]);
                var (cpuPerGigabit, callsPerPacket) = cost.Finish(tcp.Mbps, seconds, name == "veth" ? VethMss : TunnelMss);
                var reverse = Iperf(lab, target, seconds, ["-t", Text(seconds), "-R"]);
                var udp = Iperf(lab, target, seconds, ["-t", Text(seconds), "-u", "-l", "1300", "-b", "0"]);
                var sustained = SustainedUdp(lab, target, seconds, udp.Mbps);
                var (exitCode, output) = BenchTools.RunIn(lab.HostA, "ping", ["-n", "-c", "50", "-i", "0.01", "-W", "2", target], timeoutSeconds: 30);
                if (exitCode != 0)
                {
                    throw new CliException($"bench: ping through {name} failed: {output.Trim()}", CliException.FailureExitCode);
                }

                path.Tcp.Add(tcp.Mbps);
                path.Retransmits.Add(tcp.Retransmits);
                path.Reverse.Add(reverse.Mbps);
                path.ReverseRetransmits.Add(reverse.Retransmits);
                path.Udp.Add(udp.Mbps);
                path.Loss.Add(udp.LossPercent);
                path.Sustained.Add(sustained.Mbps);
                path.SustainedLoss.Add(sustained.LossPercent);
                path.Ping.Add(BenchTools.ParsePingMedianMicroseconds(output));
                if (cpuPerGigabit is { } cpu)
                {
                    path.Cpu.Add(cpu);
                }

                if (callsPerPacket is { } calls)
                {
                    path.Calls.Add(calls);
                }
            }
        }

        var paths = BenchLab.Paths.Select(p => samples[p.Name].ToPath(p.Name)).ToList();
        return new TunnelBenchReport(
            environment,
            seconds,
            rounds,
            Placement,
            paths,
            EnvironmentInfo.Capture().LoadAverage ?? string.Empty,
            TunnelBenchInterop.From(paths));
    }

    /// <summary>
    /// The highest UDP rate tried that arrives with under 1 % loss: first what the unlimited run delivered, then 25 %
    /// up a step while the loss stays under 1 % or 20 % down a step until it does, <see cref="SustainedSteps"/> tries in
    /// all; (0, last loss) when none stayed under.
    /// </summary>
    private static (double Mbps, double LossPercent) SustainedUdp(BenchLab lab, string target, int seconds, double unlimitedMbps)
    {
        var rate = Math.Max(1, Math.Floor(unlimitedMbps));
        (double Mbps, double LossPercent)? best = null;
        var loss = 100.0;
        for (var step = 0; step < SustainedSteps; step++)
        {
            var udp = Iperf(lab, target, seconds, ["-t", Text(seconds), "-u", "-l", "1300", "-b", Text((int)rate) + "M"]);
            loss = udp.LossPercent;
            if (loss < 1)
            {
                best = (udp.Mbps, udp.LossPercent);
                rate = Math.Floor(rate * 1.25);
            }
            else if (best is not null)
            {
                break;
            }
            else
            {
                rate = Math.Max(1, Math.Floor(rate * 0.8));
            }
        }

        return best ?? (0, loss);
    }

    private static (double Mbps, double LossPercent, long Retransmits) Iperf(BenchLab lab, string target, int seconds, string[] arguments)
    {
        var (exitCode, output) = BenchTools.RunIn(lab.HostA, "iperf3", ["-c", target, "-p", "5201", "-J", .. arguments], timeoutSeconds: seconds + 30);
        return exitCode == 0 || output.TrimStart().StartsWith('{')
            ? BenchTools.ParseIperf(output)
            : throw new CliException($"bench: iperf3 to {target} failed ({exitCode}): {output.Trim()}", CliException.FailureExitCode);
    }

    internal static void Print(CliConsole console, TunnelBenchReport report)
    {
        var table = new TextTable(
            "path", "TCP A->B Mbit/s", "retr", "TCP B->A Mbit/s", "retr", "CPU s/Gbit", "calls/pkt", "UDP max Mbit/s", "loss %", "UDP <1% loss Mbit/s", "loss %", "ping p50 us");
        foreach (var path in report.Paths)
        {
            table.Add(
                path.Path,
                Number(path.TcpMbps),
                Number(path.TcpRetransmits),
                Number(path.TcpReverseMbps),
                Number(path.TcpReverseRetransmits),
                Optional(path.TcpCpuSecondsPerGigabit, "0.00"),
                Optional(path.TcpSyscallsPerPacket, "0.00"),
                Number(path.UdpMbps),
                path.UdpLossPercent.ToString("0.0", CultureInfo.InvariantCulture),
                Number(path.UdpSustainedMbps),
                path.UdpSustainedLossPercent.ToString("0.0", CultureInfo.InvariantCulture),
                Number(path.PingMicroseconds));
        }

        console.Line($"salvo tunnel bench: medians of {report.Rounds} interleaved rounds, iperf3 -t {report.Seconds}, one TCP stream; UDP -l 1300 -b 0, then the highest rate tried (25 % steps up, 20 % down) with under 1 % loss; ping -c 50 -i 0.01");
        table.Write(console);
        console.Line("TCP A->B: the end named first sends (iperf3 client in A); B->A: iperf3 -R; retr: segments the TCP sender retransmitted per run. " +
            "CPU s/Gbit: user + system seconds of both tunnel processes per gigabit of the A->B run; calls/pkt: their system calls " +
            $"(perf, raw_syscalls:sys_enter) per {TunnelMss}-byte TCP segment carried");
        if (report.Interop is { } interop)
        {
            console.Line(string.Create(CultureInfo.InvariantCulture,
                $"interop, one TCP stream, both tunnels pooled: salvo -> wireguard-go {Number(interop.SalvoSendsMbps)} Mbit/s, {Number(interop.SalvoSendsRetransmits)} retransmits per run; " +
                $"wireguard-go -> salvo {Number(interop.WireGuardGoSendsMbps)} Mbit/s, {Number(interop.WireGuardGoSendsRetransmits)} retransmits per run"));
        }

        console.Line($"{report.Environment.TimestampUtc}, {report.Environment.Describe()}; load average at the end {report.LoadAverageAtEnd}; {report.Placement}");
        console.Document(report, PerfJson.Indented.TunnelBenchReport, PerfJson.Compact.TunnelBenchReport);
    }

    private static string Optional(double? value, string format) => value is { } v ? v.ToString(format, CultureInfo.InvariantCulture) : "-";

    private static string Number(double value) => value.ToString("#,0", CultureInfo.InvariantCulture);

    private static string Text(int value) => value.ToString(CultureInfo.InvariantCulture);

    /// <summary>One path's figures, round by round.</summary>
    private sealed class PathSamples
    {
        public List<double> Tcp { get; } = [];

        public List<double> Retransmits { get; } = [];

        public List<double> Reverse { get; } = [];

        public List<double> ReverseRetransmits { get; } = [];

        public List<double> Udp { get; } = [];

        public List<double> Loss { get; } = [];

        public List<double> Sustained { get; } = [];

        public List<double> SustainedLoss { get; } = [];

        public List<double> Ping { get; } = [];

        public List<double> Cpu { get; } = [];

        public List<double> Calls { get; } = [];

        public TunnelBenchPath ToPath(string name) => new(
            name,
            Spread.Of(Tcp).Median,
            Spread.Of(Udp).Median,
            Spread.Of(Loss).Median,
            Spread.Of(Ping).Median,
            Tcp,
            Udp,
            Ping,
            Cpu.Count > 0 ? Spread.Of(Cpu).Median : null,
            Calls.Count > 0 ? Spread.Of(Calls).Median : null,
            Spread.Of(Sustained).Median,
            Spread.Of(SustainedLoss).Median,
            Spread.Of(Retransmits).Median,
            Spread.Of(Reverse).Median,
            Spread.Of(ReverseRetransmits).Median,
            Retransmits,
            Reverse,
            ReverseRetransmits);
    }
}
