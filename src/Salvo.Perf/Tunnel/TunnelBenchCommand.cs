using System.CommandLine;
using System.Globalization;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// <c>salvo tunnel bench</c>: iperf3 (one TCP stream, then UDP at 1,300 B) and ping through Salvo to Salvo, Salvo to
/// wireguard-go and back, wireguard-go to wireguard-go and the plain veth underneath, interleaved round by round,
/// medians side by side.
/// </summary>
internal static class TunnelBenchCommand
{
    private const string Placement = "not pinned: both namespaces, both tunnel ends and iperf3 share the host's CPUs";

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
            if (!OperatingSystem.IsLinux())
            {
                throw new CliException("bench: needs Linux (network namespaces, /dev/net/tun)");
            }

            var missing = BenchTools.Missing(Environment.UserName == "root", File.Exists("/dev/net/tun"), BenchTools.Find);
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
        var samples = BenchLab.Paths.ToDictionary(p => p.Name, _ => (Tcp: new List<double>(), Udp: new List<double>(), Loss: new List<double>(), Ping: new List<double>()));
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
                var tcp = Iperf(lab, target, seconds, ["-t", Text(seconds)]);
                var udp = Iperf(lab, target, seconds, ["-t", Text(seconds), "-u", "-l", "1300", "-b", "0"]);
                var (exitCode, output) = BenchTools.RunIn(lab.HostA, "ping", ["-n", "-q", "-c", "50", "-i", "0.01", "-W", "2", target], timeoutSeconds: 30);
                if (exitCode != 0)
                {
                    throw new CliException($"bench: ping through {name} failed: {output.Trim()}", CliException.FailureExitCode);
                }

                var path = samples[name];
                path.Tcp.Add(tcp.Mbps);
                path.Udp.Add(udp.Mbps);
                path.Loss.Add(udp.LossPercent);
                path.Ping.Add(BenchTools.ParsePingAverageMicroseconds(output));
            }
        }

        return new TunnelBenchReport(
            environment,
            seconds,
            rounds,
            Placement,
            [.. BenchLab.Paths.Select(p => samples[p.Name]).Zip(BenchLab.Paths, (s, p) => new TunnelBenchPath(
                p.Name, Spread.Of(s.Tcp).Median, Spread.Of(s.Udp).Median, Spread.Of(s.Loss).Median, Spread.Of(s.Ping).Median, s.Tcp, s.Udp, s.Ping))]);
    }

    private static (double Mbps, double LossPercent) Iperf(BenchLab lab, string target, int seconds, string[] arguments)
    {
        var (exitCode, output) = BenchTools.RunIn(lab.HostA, "iperf3", ["-c", target, "-p", "5201", "-J", .. arguments], timeoutSeconds: seconds + 30);
        return exitCode == 0 || output.TrimStart().StartsWith('{')
            ? BenchTools.ParseIperf(output)
            : throw new CliException($"bench: iperf3 to {target} failed ({exitCode}): {output.Trim()}", CliException.FailureExitCode);
    }

    internal static void Print(CliConsole console, TunnelBenchReport report)
    {
        var table = new TextTable("path", "TCP Mbit/s", "UDP 1300 B Mbit/s", "UDP loss %", "ping avg us");
        foreach (var path in report.Paths)
        {
            table.Add(path.Path, Number(path.TcpMbps), Number(path.UdpMbps), path.UdpLossPercent.ToString("0.0", CultureInfo.InvariantCulture), Number(path.PingMicroseconds));
        }

        console.Line($"salvo tunnel bench: medians of {report.Rounds} interleaved rounds, iperf3 -t {report.Seconds}, one TCP stream; UDP -l 1300 -b 0; ping -c 50 -i 0.01");
        table.Write(console);
        console.Line($"{report.Environment.TimestampUtc}, {report.Environment.Describe()}; {report.Placement}");
        console.Document(report, PerfJson.Indented.TunnelBenchReport, PerfJson.Compact.TunnelBenchReport);
    }

    private static string Number(double value) => value.ToString("#,0", CultureInfo.InvariantCulture);

    private static string Text(int value) => value.ToString(CultureInfo.InvariantCulture);
}
