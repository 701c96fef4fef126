using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using Salvo.Perf.Cli;
using Salvo.Perf.Impair;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Soak;

/// <summary><c>salvo soak -t SECONDS</c>: a modest mixed load for a long time, sampling the process every second, and a verdict on whether it grew.</summary>
internal static class SoakCommand
{
    public static Command Create(CliConsole console)
    {
        var time = CommonOptions.Seconds("--time", "-t", 60, $"Seconds of load, at least 3; a verdict needs at least {SoakJudge.MinimumRunSeconds} ({SoakJudge.WarmupSeconds} s warm-up, then {SoakJudge.MinimumJudgedSeconds} s whose later half is judged).", min: 3);
        var rate = CommonOptions.Int("--rate", "-r", "PER_SECOND", 2000, 100, 1_000_000, "Datagrams per second sent to the echo server.");
        var connections = CommonOptions.Int("--connections", "-c", "PER_SECOND", 5, 1, 1000, "TCP connections opened (and closed) per second.");
        var interval = CommonOptions.Seconds("--interval", "-i", 1, "Seconds between samples.");
        var bind = CommonOptions.LoopbackBind();
        var command = new Command("soak",
            "Runs a mixed load in this process for -t seconds (datagrams of varied sizes through a DatagramServer echo, " +
            "request/response, TCP connections coming and going), samples working set, managed heap before and after a full collection, GC counts, " +
            "handles and threads every interval, and says whether the process grew: the trend of the heap after collection, handles and threads " +
            "over the later half of the run after a 5 s warm-up (the working set is shown, not judged). Exits 3 when something grew.")
        {
            time, rate, connections, interval, bind,
        };
        command.SetAction((parse, cancellationToken) => RunAsync(console, parse.GetValue(time), parse.GetValue(rate), parse.GetValue(connections), parse.GetValue(interval),
            CommonOptions.ParseLoopbackAddress(parse.GetValue(bind)!), cancellationToken));
        return command;
    }

    public static async Task<int> RunAsync(CliConsole console, double seconds, int rate, int connections, double interval, IPAddress address, CancellationToken cancellationToken)
    {
        var environment = EnvironmentInfo.Capture();
        var samples = new List<SoakSample>();
        await using var load = await SoakLoad.StartAsync(address, rate, connections).ConfigureAwait(false);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        console.Line($"salvo soak on {address}: {seconds.ToString(CultureInfo.InvariantCulture)} s, {rate} datagrams/s (sizes 64..16384 B) + request/response + {connections} TCP connection(s)/s, sample every {interval.ToString(CultureInfo.InvariantCulture)} s");
        var clock = Stopwatch.StartNew();
        var running = load.RunAsync(stop.Token);
        try
        {
            for (var next = interval; next <= seconds + 1e-9; next += interval)
            {
                var wait = TimeSpan.FromSeconds(next) - clock.Elapsed;
                if (wait > TimeSpan.Zero)
                {
                    await Task.Delay(wait, cancellationToken).ConfigureAwait(false);
                }

                var sample = SoakSampler.Sample(Math.Round(clock.Elapsed.TotalSeconds, 3), load.Traffic);
                samples.Add(sample);
                console.Event(sample, LabJson.Compact.SoakSample);
                if (console.Format == OutputFormat.Text)
                {
                    console.Out.WriteLine(Row(sample));
                }
            }
        }
        catch (OperationCanceledException)
        {
            // A stop signal (Ctrl+C, SIGTERM): judge what was sampled, as at the end of -t.
        }

        await stop.CancelAsync().ConfigureAwait(false);
        await running.ConfigureAwait(false);
        var judgement = SoakJudge.Judge(samples);
        var report = new SoakReport("soak", environment, seconds, rate, connections, interval, samples, judgement.Trends,
            judgement.Verdict, judgement.Explanation, load.Traffic, address.ToString());
        console.Document(report, LabJson.Indented.SoakReport, LabJson.Compact.SoakReport);
        if (console.Format == OutputFormat.Text)
        {
            if (judgement.Trends.Count > 0)
            {
                var verdict = new TextTable("resource", "window", "first", "last", "trend", "rise over window", "allowed rise", "flat");
                foreach (var t in judgement.Trends)
                {
                    var bytes = t.Resource is SoakJudge.HeapAfterCollection or SoakJudge.WorkingSet;
                    string Value(double v) => bytes ? Mib(v) : v.ToString("F1", CultureInfo.InvariantCulture);
                    verdict.Add(t.Resource, string.Create(CultureInfo.InvariantCulture, $"{t.FromSecond:F0}-{t.ToSecond:F0} s"), Value(t.First), Value(t.Last),
                        $"{Value(t.SlopePerSecond * 60)}/min", Value(t.Rise), Value(t.Allowed), !t.Decides ? "(not judged)" : t.Flat ? "yes" : "NO");
                }

                verdict.Write(console);
            }

            var traffic = load.Traffic;
            console.Line($"Load: {traffic.DatagramsSent:N0} datagrams sent, {traffic.DatagramsEchoed:N0} echoed; {traffic.Requests:N0} requests ({traffic.RequestTimeouts:N0} timed out); {traffic.Connections:N0} TCP connections ({traffic.ConnectionFailures:N0} failed).");
            console.Line(judgement.Trends.Count > 0 ? $"Verdict: {report.Verdict} ({report.Rule})." : $"Verdict: {report.Rule}.");
        }

        return judgement.ExitCode;
    }

    private static string Row(SoakSample s) => string.Create(CultureInfo.InvariantCulture,
        $"{s.Second,8:F1}  ws {Mib(s.WorkingSetBytes),10}  heap {Mib(s.ManagedHeapBytes),10}  after gc {Mib(s.HeapAfterCollectionBytes),10}  gc {s.Gen0Collections}/{s.Gen1Collections}/{s.Gen2Collections}  fds {s.Handles,4}  threads {s.Threads,3}  sent {s.Traffic.DatagramsSent,10:N0}  echoed {s.Traffic.DatagramsEchoed,10:N0}  rr {s.Traffic.Requests,8:N0}  tcp {s.Traffic.Connections,6:N0}");

    private static string Mib(double bytes) => string.Create(CultureInfo.InvariantCulture, $"{bytes / (1 << 20):F1} MiB");
}

/// <summary>The <c>salvo soak --json</c> document.</summary>
/// <param name="Command">"soak".</param>
/// <param name="Environment">Where it ran.</param>
/// <param name="DurationSeconds">Seconds of load asked for.</param>
/// <param name="DatagramsPerSecond">Datagrams per second sent to the echo server.</param>
/// <param name="ConnectionsPerSecond">TCP connections opened per second.</param>
/// <param name="IntervalSeconds">Seconds between samples.</param>
/// <param name="Samples">Every sample.</param>
/// <param name="Trends">The trend of each resource over the judged window; empty when too short to judge.</param>
/// <param name="Verdict">"flat", "growing" or "too short".</param>
/// <param name="Rule">The rule applied, or why the run was too short.</param>
/// <param name="Traffic">The load's counts at the end.</param>
/// <param name="Address">The loopback address the load ran over (-B): 127.0.0.1 or ::1.</param>
internal sealed record SoakReport(string Command, EnvironmentInfo Environment, double DurationSeconds, int DatagramsPerSecond, int ConnectionsPerSecond, double IntervalSeconds,
    IReadOnlyList<SoakSample> Samples, IReadOnlyList<SoakTrend> Trends, string Verdict, string Rule, SoakTraffic Traffic, string Address);
