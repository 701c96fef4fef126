using System.CommandLine;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Rr;

/// <summary><c>salvo rr</c>: request/response rate and latency percentiles.</summary>
internal static class RrCommand
{
    public static Command Create(CliConsole console)
    {
        var options = new RrOptionSet();
        var command = new Command("rr",
            "Request/response: keeps --parallel requests in flight over --connections sockets (closed loop) or sends " +
            "--rate requests/s on a schedule (latency then counts from each request's intended send time). Answers " +
            "come from an in-process responder on 127.0.0.1, or from 'salvo server' at --server HOST:PORT. Reports " +
            "requests/s and latency p50/p90/p99/p99.9/p99.99/max in microseconds (HdrHistogram).");
        options.AddTo(command);
        command.SetAction((parse, cancellationToken) =>
        {
            var settings = options.Read(parse);
            var result = RrRunner.Run(settings, (seconds, completed) =>
                console.Event(new RrIntervalEvent("interval", seconds, completed), PerfJson.Compact.RrIntervalEvent), cancellationToken);
            Print(console, new RrReport("rr", EnvironmentInfo.Capture(), settings, result));
            return Task.FromResult(0);
        });
        return command;
    }

    private static void Print(CliConsole console, RrReport report)
    {
        console.Document(report, PerfJson.Indented.RrReport, PerfJson.Compact.RrReport);
        var s = report.Settings;
        console.Line($"salvo rr: {s.RequestBytes} B request, {s.ResponseBytes} B response, " +
            (s.RatePerSecond > 0 ? $"fixed rate {Format.Count(s.RatePerSecond)}/s" : $"{s.Parallel} in flight") +
            $", {s.Connections} connection(s), {s.DurationSeconds} s, {s.Server ?? $"in-process {s.Responder} responder on 127.0.0.1"}" +
            (s.BusyPollMicroseconds > 0 ? $", busy poll {s.BusyPollMicroseconds} us" : string.Empty));
        console.Line(report.Environment.Describe());
        ToTable([report.Result]).Write(console);
    }

    /// <summary>Results as a table (one row each).</summary>
    public static TextTable ToTable(IEnumerable<RrResult> results)
    {
        var table = new TextTable("mode", "in flight", "requests/s", "p50 us", "p90 us", "p99 us", "p99.9 us", "p99.99 us", "max us", "lost", "late", "process CPU");
        foreach (var r in results)
        {
            var l = r.Latency;
            table.Add(r.Mode, Format.Count(r.Parallel), Format.Count(r.RequestsPerSecond), Format.Fixed(l.P50Microseconds, 1),
                Format.Fixed(l.P90Microseconds, 1), Format.Fixed(l.P99Microseconds, 1), Format.Fixed(l.P999Microseconds, 1),
                Format.Fixed(l.P9999Microseconds, 1), Format.Fixed(l.MaxMicroseconds, 1), Format.Count(r.Lost), Format.Count(r.Late), Format.Percent(r.ProcessCpuPercent));
        }

        return table;
    }

    /// <summary>The rr options.</summary>
    internal sealed class RrOptionSet
    {
        public Option<int> Request { get; } = CommonOptions.Int("--request", null, "BYTES", 512, Rr.RrWire.MinRequest, ValueParsers.MaxUdpPayload, "Request size in bytes.");

        public Option<int> Response { get; } = CommonOptions.Int("--response", null, "BYTES", 512, Rr.RrWire.MinResponse, ValueParsers.MaxUdpPayload, "Response size in bytes.");

        public Option<int> Parallel { get; } = CommonOptions.Int("--parallel", "-P", "REQUESTS", 1, 1, 65_535, "Requests in flight (closed loop).");

        public Option<int> Connections { get; } = CommonOptions.Int("--connections", "-c", "SOCKETS", 1, 1, 256, "Client sockets, each on its own thread (closed loop: at most --parallel).");

        public Option<double> Duration { get; } = CommonOptions.Seconds("--time", "-t", 5, "Measured seconds.");

        public Option<double> Warmup { get; } = CommonOptions.Seconds("--warmup", null, 0.5, "Unmeasured seconds first.", min: 0.01);

        public Option<double> Rate { get; } = CommonOptions.Double("--rate", null, "PER_SECOND", 0, 0, 10_000_000, "requests/s",
            "Fixed rate in requests/s over all connections (open loop; latency from the intended send time); 0 is the closed loop.");

        public Option<string?> Server { get; } = new("--server", "-s")
        {
            Description = "HOST:PORT of a 'salvo server' to send requests to. Defaults to an in-process responder on 127.0.0.1.",
            HelpName = "HOST:PORT",
        };

        public Option<int> Timeout { get; } = CommonOptions.Int("--timeout-ms", null, "MS", 1000, 1, 60_000, "Milliseconds after which an unanswered request counts as lost (and, closed loop, is replaced).");

        public Option<string> Responder { get; } = CommonOptions.Choice("--responder",
            "The in-process responder: socket (one DatagramSocket answering on a thread) or server (a DatagramServer with one worker and a batched handler).",
            "socket", "server");

        public Option<double> BusyPoll { get; } = CommonOptions.Double("--busy-poll", null, "MICROSECONDS", 0, 0, 1_000_000, "microseconds",
            "With --responder server: microseconds the server's worker spins on non-blocking receives before it blocks (its low-latency mode; costs CPU); 0 is off.");


        public void AddTo(Command command)
        {
            foreach (var option in new Option[] { Request, Response, Parallel, Connections, Duration, Warmup, Rate, Server, Timeout, Responder, BusyPoll })
            {
                command.Options.Add(option);
            }
        }

        public RrSettings Read(ParseResult parse, int? parallel = null, double? seconds = null)
        {
            var p = parallel ?? parse.GetValue(Parallel);
            var rate = parse.GetValue(Rate);
            var connections = rate > 0 ? parse.GetValue(Connections) : Math.Min(parse.GetValue(Connections), p);
            var server = parse.GetValue(Server);
            if (server is not null)
            {
                _ = ValueParsers.ParseHostPort(server, "--server");
            }

            var responder = parse.GetValue(Responder)!;
            var busyPoll = parse.GetValue(BusyPoll);
            if (busyPoll > 0 && responder != "server")
            {
                throw new CliException("--busy-poll: applies to --responder server only.");
            }

            return new RrSettings(parse.GetValue(Request), parse.GetValue(Response), p, connections,
                seconds ?? parse.GetValue(Duration), parse.GetValue(Warmup), rate, server, parse.GetValue(Timeout), responder, busyPoll);
        }
    }
}
