using System.CommandLine;
using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Loopback;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Salvo.Perf.Rr;

namespace Salvo.Perf.Sweep;

/// <summary><c>salvo sweep</c>: loopback over many payload sizes and rr over several parallelism levels, written as HTML and JSON.</summary>
internal static class SweepCommand
{
    /// <summary>Sizes around the edges that matter: 1,024/1,025 (Windows' FastSendDatagramThreshold), 1,472/1,473 (a 1,500-byte MTU), 8,972 (a 9,000-byte MTU), 65,507 (the limit).</summary>
    public static readonly int[] DefaultSizes = [64, 512, 1024, 1025, 1380, 1472, 1473, 8972, 65000, 65507];

    public static Command Create(CliConsole console)
    {
        var loopback = new LoopbackCommand.LoopbackOptionSet();
        var rr = new RrCommand.RrOptionSet
        {
            Bind = loopback.Bind,
            Request = CommonOptions.Int("--request", null, "BYTES", 512, RrWire.MinRequest, ValueParsers.MaxUdpPayload, "rr request size in bytes."),
            Response = CommonOptions.Int("--response", null, "BYTES", 512, RrWire.MinResponse, ValueParsers.MaxUdpPayload, "rr response size in bytes."),
        };
        var sizes = CommonOptions.Lengths(DefaultSizes, LoopbackCommand.MinPayload, "Loopback payload sizes in bytes");
        var time = CommonOptions.Seconds("--time", "-t", 1, "Measured seconds per point.");
        var repeat = CommonOptions.Int("--repeat", null, "COUNT", 1, 1, 100, "Repetitions of the loopback sweep.");
        var levels = new Option<int[]>("--parallel-levels")
        {
            Description = $"rr requests in flight to sweep, comma-separated, each 1 to {CommonOptions.Number(RrCommand.MaxParallel)}. Defaults to 1,4,16,64.",
            HelpName = "N[,N...]",
            Arity = System.CommandLine.ArgumentArity.ExactlyOne,
            DefaultValueFactory = _ => [1, 4, 16, 64],
            CustomParser = result =>
            {
                var counts = ValueParsers.ParseCounts(string.Join(',', result.Tokens.Select(t => t.Value)), "--parallel-levels", RrCommand.MaxParallel, out var error);
                if (error is not null)
                {
                    result.AddError(error);
                }

                return counts;
            },
        };
        var kind = new Option<string>("--kind")
        {
            Description = "What to sweep: loopback, rr or all. Defaults to all.",
            HelpName = "loopback|rr|all",
            DefaultValueFactory = _ => "all",
        };
        kind.Validators.Add(result =>
        {
            var value = result.GetValueOrDefault<string>();
            if (value is not ("loopback" or "rr" or "all"))
            {
                result.AddError($"--kind: '{value}' is not one of loopback, rr, all.");
            }
        });
        var output = new Option<string>("--out", "-o")
        {
            Description = "Directory for sweep.html and sweep.json (created if missing). Defaults to salvo-sweep.",
            HelpName = "DIR",
            DefaultValueFactory = _ => "salvo-sweep",
        };

        var command = new Command("sweep",
            "Runs loopback over many payload sizes (all methods, interleaved) and rr over several in-flight levels, " +
            "then writes a self-contained HTML report with SVG charts and the JSON into --out.");
        loopback.AddTo(command);
        command.Options.Remove(loopback.Lengths);
        command.Options.Remove(loopback.Duration);
        command.Options.Remove(loopback.Repeat);
        foreach (var option in new System.CommandLine.Option[] { sizes, time, repeat, levels, kind, output, rr.Request, rr.Response, rr.Connections, rr.Timeout })
        {
            command.Options.Add(option);
        }

        command.SetAction((parse, cancellationToken) =>
        {
            var what = parse.GetValue(kind)!;
            var seconds = parse.GetValue(time);
            var directory = parse.GetValue(output)!;
            LoopbackReport? loopbackReport = null;
            if (what is "loopback" or "all")
            {
                var run = loopback.Read(parse, parse.GetValue(sizes), parse.GetValue(repeat), seconds);
                loopbackReport = LoopbackCommand.Measure(console, run, cancellationToken);
                if (console.Format == OutputFormat.Text)
                {
                    LoopbackCommand.Print(console, loopbackReport);
                }
            }

            var rrResults = new List<RrResult>();
            if (what is "rr" or "all")
            {
                foreach (var level in parse.GetValue(levels)!)
                {
                    // One --backend for both halves: the loopback option set owns it.
                    var settings = rr.Read(parse, level, seconds, BackendOption.Read(parse, loopback.Backend));
                    rrResults.Add(RrRunner.Run(settings, null, cancellationToken));
                    console.Line($"rr {level} in flight: {Format.Count(rrResults[^1].RequestsPerSecond)} requests/s, RTT p50 {Format.Fixed(rrResults[^1].Latency.P50Microseconds, 1)} us, p99 {Format.Fixed(rrResults[^1].Latency.P99Microseconds, 1)} us");
                }
            }

            var report = new SweepReport("sweep", EnvironmentInfo.Capture(), "salvo " + string.Join(' ', parse.Tokens.Select(t => t.Value)), loopbackReport, rrResults);
            Write(directory, report);
            console.Document(report, PerfJson.Indented.SweepReport, PerfJson.Compact.SweepReport);
            console.Line($"Wrote {Path.Combine(directory, "sweep.html")} and {Path.Combine(directory, "sweep.json")}");
            return Task.FromResult(0);
        });
        return command;
    }

    /// <summary>Writes sweep.json and sweep.html into <paramref name="directory"/>.</summary>
    public static void Write(string directory, SweepReport report)
    {
        try
        {
            Directory.CreateDirectory(directory);
            File.WriteAllText(Path.Combine(directory, "sweep.json"), JsonSerializer.Serialize(report, PerfJson.Indented.SweepReport));
            File.WriteAllText(Path.Combine(directory, "sweep.html"), HtmlReport.Render(report));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new CliException($"--out: cannot write to '{directory}': {e.Message}", CliException.FailureExitCode);
        }
    }
}

/// <summary>The JSON document of <c>salvo sweep</c> (also sweep.json).</summary>
/// <param name="Command">"sweep".</param>
/// <param name="Environment">Where it ran.</param>
/// <param name="CommandLine">The command that produced it.</param>
/// <param name="Loopback">The loopback sweep, or null.</param>
/// <param name="Rr">The rr results by parallelism.</param>
internal sealed record SweepReport(string Command, EnvironmentInfo Environment, string CommandLine, LoopbackReport? Loopback, IReadOnlyList<RrResult> Rr);
