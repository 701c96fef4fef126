using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using Salvo.Perf.Cli;
using Salvo.Perf.Impair;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Soak;

/// <summary><c>salvo soak -t SECONDS</c>: a modest mixed load for a long time, sampling the process every second, and a verdict on whether memory stayed flat.</summary>
internal static class SoakCommand
{
    public static Command Create(CliConsole console)
    {
        var time = CommonOptions.Seconds("--time", "-t", 60, "Seconds of load (at least 3: the verdict compares thirds).", min: 3);
        var rate = CommonOptions.Int("--rate", "-r", 2000, 100, 1_000_000, "Datagrams per second sent to the echo server.");
        var connections = CommonOptions.Int("--connections", "-c", 5, 1, 1000, "TCP connections opened (and closed) per second.");
        var interval = CommonOptions.Seconds("--interval", "-i", 1, "Seconds between samples.");
        var bind = CommonOptions.LoopbackBind();
        var command = new Command("soak",
            "Runs a mixed load in this process for -t seconds (datagrams of varied sizes through a DatagramServer echo, " +
            "request/response, TCP connections coming and going), samples working set, managed heap, GC counts, handles " +
            "and threads every interval, and says whether memory stayed flat (last third against first third).")
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
            // Ctrl+C: judge what was sampled.
        }

        await stop.CancelAsync().ConfigureAwait(false);
        await running.ConfigureAwait(false);
        if (samples.Count < 3)
        {
            throw new CliException("salvo soak: fewer than 3 samples; nothing to judge.", CliException.FailureExitCode);
        }

        var trends = SoakSampler.Judge(samples);
        var flat = trends.Where(t => t.Resource is "working set" or "managed heap").All(t => t.Flat);
        var report = new SoakReport("soak", environment, seconds, rate, connections, interval, samples, trends,
            flat ? "flat" : "growing", $"memory flat when the last-third mean exceeds the first-third mean by at most {SoakSampler.MemoryTolerance:P0} or {SoakSampler.MemorySlackBytes >> 20} MiB, whichever is larger; handles and threads by at most {SoakSampler.CountSlack}",
            load.Traffic, address.ToString());
        console.Document(report, LabJson.Indented.SoakReport, LabJson.Compact.SoakReport);
        if (console.Format == OutputFormat.Text)
        {
            var verdict = new TextTable("resource", "first third", "last third", "allowed rise", "flat");
            foreach (var t in trends)
            {
                var bytes = t.Resource is "working set" or "managed heap";
                verdict.Add(t.Resource, bytes ? Mib(t.FirstThirdMean) : t.FirstThirdMean.ToString("F1", CultureInfo.InvariantCulture),
                    bytes ? Mib(t.LastThirdMean) : t.LastThirdMean.ToString("F1", CultureInfo.InvariantCulture),
                    bytes ? Mib(t.Allowed) : t.Allowed.ToString("F0", CultureInfo.InvariantCulture), t.Flat ? "yes" : "NO");
            }

            verdict.Write(console);
            var traffic = load.Traffic;
            console.Line($"Load: {traffic.DatagramsSent:N0} datagrams sent, {traffic.DatagramsEchoed:N0} echoed; {traffic.Requests:N0} requests ({traffic.RequestTimeouts:N0} timed out); {traffic.Connections:N0} TCP connections ({traffic.ConnectionFailures:N0} failed).");
            console.Line($"Verdict: memory {report.Verdict} ({report.Rule}).");
        }

        return flat ? 0 : 3;
    }

    private static string Row(SoakSample s) => string.Create(CultureInfo.InvariantCulture,
        $"{s.Second,8:F1}  ws {Mib(s.WorkingSetBytes),10}  heap {Mib(s.ManagedHeapBytes),10}  gc {s.Gen0Collections}/{s.Gen1Collections}/{s.Gen2Collections}  fds {s.Handles,4}  threads {s.Threads,3}  sent {s.Traffic.DatagramsSent,10:N0}  echoed {s.Traffic.DatagramsEchoed,10:N0}  rr {s.Traffic.Requests,8:N0}  tcp {s.Traffic.Connections,6:N0}");

    private static string Mib(double bytes) => string.Create(CultureInfo.InvariantCulture, $"{bytes / (1 << 20):F1} MiB");
}

/// <summary>The <c>salvo soak --json</c> document.</summary>
internal sealed record SoakReport(string Command, EnvironmentInfo Environment, double DurationSeconds, int DatagramsPerSecond, int ConnectionsPerSecond, double IntervalSeconds,
    IReadOnlyList<SoakSample> Samples, IReadOnlyList<SoakTrend> Trends, string Verdict, string Rule, SoakTraffic Traffic, string Address);
