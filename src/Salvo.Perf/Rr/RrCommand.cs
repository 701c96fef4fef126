using System.CommandLine;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Salvo.Perf.TestServer.Sockperf;

namespace Salvo.Perf.Rr;

/// <summary><c>salvo rr</c>: request/response rate and latency percentiles.</summary>
internal static class RrCommand
{
    /// <summary>The most requests in flight, -P (and each of sweep's --parallel-levels).</summary>
    public const int MaxParallel = 65_535;

    public static Command Create(CliConsole console)
    {
        var options = new RrOptionSet();
        var command = new Command("rr",
            "Request/response: keeps --parallel requests in flight over --connections sockets (closed loop) or sends " +
            "--rate requests/s on a schedule (latency then counts from each request's intended send time). Answers " +
            "come from an in-process responder on loopback (127.0.0.1, or ::1 with -B ::1), or from 'salvo server' at --server HOST:PORT. Reports " +
            "requests/s and latency p50/p90/p99/p99.9/p99.99/max in microseconds (HdrHistogram).");
        options.AddTo(command);
        command.SetAction((parse, cancellationToken) =>
        {
            var settings = options.Read(parse);
            var result = RrRunner.Run(settings, (name, seconds, completed) =>
            {
                if (name == RrIntervalEvent.Measuring)
                {
                    // On stderr in every format: a script measuring beside rr --json starts here too, and a person
                    // at the terminal sees why the first seconds printed nothing.
                    console.Note($"salvo rr: measuring for {settings.DurationSeconds} s after {Format.Fixed(seconds, 1)} s of warm-up");
                }

                console.Event(new RrIntervalEvent(name, seconds, completed), PerfJson.Compact.RrIntervalEvent);
            }, cancellationToken);
            Print(console, new RrReport("rr", EnvironmentInfo.Capture(), settings, result));
            return Task.FromResult(0);
        });
        return command;
    }

    /// <summary>Prints the document (JSON) or the settings line, the environment and the table (text).</summary>
    internal static void Print(CliConsole console, RrReport report)
    {
        // sockperf's own 'latency' is half the round trip (its ping-pong report divides by two); a figure compared with
        // sockperf's must be the half, and a figure compared with any other tool's the whole.
        var half = report.Settings.Protocol == RrProtocols.Sockperf ? report.Result.Latency.Halved() : null;
        report = report with { Result = report.Result with { HalfRoundTripLatency = half } };
        console.Document(report, PerfJson.Indented.RrReport, PerfJson.Compact.RrReport);
        var s = report.Settings;
        console.Line($"salvo rr: {s.RequestBytes} B request, {s.ResponseBytes} B response, " +
            (s.RatePerSecond > 0 ? $"fixed rate {Format.Count(s.RatePerSecond)}/s" : $"{s.Parallel} in flight") +
            $", {s.Connections} connection(s), {s.DurationSeconds} s, {s.Server ?? $"in-process {s.Responder} responder on {s.Address}"}" +
            (s.Protocol == RrProtocols.Sockperf ? ", sockperf protocol" : string.Empty) +
            (s.BusyPollMicroseconds > 0 ? $", busy poll {s.BusyPollMicroseconds} us" : string.Empty) +
            (report.Result.ResponderBackend is { } backend ? $", {backend} backend" : string.Empty) +
            $"; {CpuPlacement.Describe(s.ClientCpu, "client", s.ResponderCpu, s.Server is null ? "responder" : "remote responder")}" +
            (report.Result.PinFailure is { } failure ? $" (pinning failed: {failure})" : string.Empty));
        console.Line(report.Environment.Describe());
        ToTable([report.Result]).Write(console);
        if (half is not null)
        {
            console.Line($"RTT/2, sockperf's latency (half the round trip; compare this with sockperf's own report): avg {Format.Fixed(half.MeanMicroseconds, 1)}, " +
                $"p50 {Format.Fixed(half.P50Microseconds, 1)}, p90 {Format.Fixed(half.P90Microseconds, 1)}, p99 {Format.Fixed(half.P99Microseconds, 1)}, " +
                $"p99.9 {Format.Fixed(half.P999Microseconds, 1)}, p99.99 {Format.Fixed(half.P9999Microseconds, 1)}, max {Format.Fixed(half.MaxMicroseconds, 1)} us");
        }

        var r = report.Result;
        var warmup = s.WarmupJitIdleSeconds <= 0 ? "as asked"
            : r.JitBusyWhenMeasuringBegan ? $"the JIT was still compiling after {RrRunner.MostWarmupSeconds:0} s"
            : $"until the JIT had compiled nothing for {s.WarmupJitIdleSeconds} s";
        console.Line($"warm-up {Format.Fixed(r.WarmupSeconds, 1)} s ({warmup}); while measuring: {Format.Count(r.MethodsCompiledWhileMeasuring)} methods compiled in {Format.Fixed(r.JitMillisecondsWhileMeasuring, 1)} ms, " +
            $"{Format.Fixed(r.ProcessCpuMicrosecondsPerRequest, 1)} us of this process's CPU per request");

        if (s.BusyPollMicroseconds > 0)
        {
            console.Line($"busy poll: {Format.Count(report.Result.BusyPollDatagrams)} requests picked up while the worker spun, without a wake-up");
        }
    }

    /// <summary>Results as a table (one row each).</summary>
    public static TextTable ToTable(IEnumerable<RrResult> results)
    {
        // Every latency rr measures is a round trip: from a request's (intended) send to its response.
        var table = new TextTable("mode", "in flight", "requests/s", "RTT p50 us", "RTT p90 us", "RTT p99 us", "RTT p99.9 us", "RTT p99.99 us", "RTT max us",
            "lost", "late", "process CPU", "req/send", "resp/recv");
        foreach (var r in results)
        {
            var l = r.Latency;
            table.Add(r.Mode, Format.Count(r.Parallel), Format.Count(r.RequestsPerSecond), Format.Fixed(l.P50Microseconds, 1),
                Format.Fixed(l.P90Microseconds, 1), Format.Fixed(l.P99Microseconds, 1), Format.Fixed(l.P999Microseconds, 1),
                Format.Fixed(l.P9999Microseconds, 1), Format.Fixed(l.MaxMicroseconds, 1), Format.Count(r.Lost), Format.Count(r.Late), Format.Percent(r.ProcessCpuPercent),
                Format.Fixed(r.RequestsPerSendCall, 1), Format.Fixed(r.ResponsesPerReceiveCall, 1));
        }

        return table;
    }

    /// <summary>The rr options.</summary>
    internal sealed class RrOptionSet
    {
        /// <summary>--request; sweep gives its own, which does not speak of --protocol (sweep's rr speaks salvo only).</summary>
        public Option<int> Request { get; init; } = CommonOptions.Int("--request", null, "BYTES", 512, SockperfHeader.Size, ValueParsers.MaxUdpPayload,
            "Request size in bytes (at least 28 with --protocol salvo).");

        /// <summary>--response; sweep gives its own, as for <see cref="Request"/>.</summary>
        public Option<int> Response { get; init; } = CommonOptions.Int("--response", null, "BYTES", 512, Rr.RrWire.MinResponse, ValueParsers.MaxUdpPayload,
            "Response size in bytes (with --protocol sockperf: the request's size, which is what a sockperf server answers).");

        public Option<string> Protocol { get; } = CommonOptions.Choice("--protocol",
            "The wire protocol: salvo (requests that carry their send time and the response size they want) or sockperf " +
            "(sockperf's UDP ping-pong messages, answered by a stock 'sockperf server' or by 'salvo server'; needs --server).",
            RrProtocols.Salvo, RrProtocols.Sockperf);

        public Option<int> Parallel { get; } = CommonOptions.Int("--parallel", "-P", "REQUESTS", 1, 1, MaxParallel, "Requests in flight (closed loop).");

        public Option<int> Connections { get; } = CommonOptions.Int("--connections", "-c", "SOCKETS", 1, 1, 256, "Client sockets, each on its own thread (closed loop: at most --parallel).");

        public Option<double> Duration { get; } = CommonOptions.Seconds("--time", "-t", 5, "Measured seconds.");

        public Option<double> Warmup { get; } = CommonOptions.Seconds("--warmup", null, 0.5, "Unmeasured seconds first (0: none).", min: 0.01, allowZero: true);

        public Option<double> WarmupJitIdle { get; } = CommonOptions.Seconds("--warmup-jit-idle", null, 2,
            $"After --warmup, warm up until the JIT has compiled no method for this many seconds, {RrRunner.MostWarmupSeconds:0} s of warm-up at most: tiered compilation of the hot loops cost a run measured after 0.5 s a sixth of its requests/s, and the runtime waits 1 s between its rounds of it on one CPU. The report gives the warm-up's length and the methods compiled while measuring. 0 keeps the warm-up at --warmup.",
            min: 0.01, allowZero: true);

        public Option<double> Rate { get; } = CommonOptions.Double("--rate", null, "PER_SECOND", 0, 0, 10_000_000, "requests/s",
            "Fixed rate in requests/s over all connections (open loop; latency from the intended send time); 0 is the closed loop.");

        public Option<string?> Server { get; } = new("--server", "-s")
        {
            Description = "HOST:PORT of a 'salvo server' to send requests to. Defaults to an in-process responder on 127.0.0.1.",
            HelpName = "HOST:PORT",
        };

        public Option<int> Timeout { get; } = CommonOptions.Int("--timeout-ms", null, "MS", 1000, 1, 60_000, "Milliseconds after which an unanswered request counts as lost (and, closed loop, is replaced).");

        public Option<string> Responder { get; } = CommonOptions.Choice("--responder",
            "The in-process responder: server, a DatagramServer with one worker whose handler answers each batch of requests in one batched send.",
            "server");

        public Option<double> BusyPoll { get; } = CommonOptions.Double("--busy-poll", null, "MICROSECONDS", 0, 0, 10_000, "microseconds",
            "With --responder server: microseconds the server's worker spins on non-blocking receives before it blocks (its low-latency mode; costs CPU); 0 is off.");

        public Option<bool> NoPin { get; } = new("--no-pin")
        {
            Description = "Do not pin threads. By default (Linux) the client threads run on the first allowed CPU and the in-process responder on the second, so the two never share a core. Defaults to pinned.",
        };

        public Option<int> ClientCpu { get; } = CommonOptions.Int("--client-cpu", null, "CPU", -1, -1, 1023, "CPU for the client threads; -1 = the first allowed CPU.");

        public Option<int> ResponderCpu { get; } = CommonOptions.Int("--responder-cpu", null, "CPU", -1, -1, 1023,
            "CPU for the in-process responder's thread; -1 = the second allowed CPU. Equal to --client-cpu to measure both ends on one core.");

        public Option<string> Backend { get; } = BackendOption.Create("the client sockets and the in-process responder's socket (a remote --server chooses its own)", afXdp: true);

        public Option<bool> AfXdpBusyPoll { get; } = BackendOption.AfXdpBusyPoll("the client sockets");

        /// <summary>-B; sweep passes its loopback -B so one option sets both.</summary>
        public Option<string> Bind { get; init; } = CommonOptions.LoopbackBind();

        public void AddTo(Command command)
        {
            foreach (var option in new Option[] { Request, Response, Parallel, Connections, Duration, Warmup, WarmupJitIdle, Rate, Server, Timeout, Responder, BusyPoll, Backend, AfXdpBusyPoll, NoPin, ClientCpu, ResponderCpu, Bind, Protocol })
            {
                command.Options.Add(option);
            }
        }

        public RrSettings Read(ParseResult parse, int? parallel = null, double? seconds = null, DatagramBackend? backendOverride = null)
        {
            var p = parallel ?? parse.GetValue(Parallel);
            var rate = parse.GetValue(Rate);
            var connections = rate > 0 ? parse.GetValue(Connections) : Math.Min(parse.GetValue(Connections), p);
            var server = parse.GetValue(Server);
            if (server is not null)
            {
                _ = ValueParsers.ParseHostPort(server, "--server");
            }

            var backend = backendOverride ?? BackendOption.Read(parse, Backend);
            var responder = parse.GetValue(Responder)!;
            var busyPoll = parse.GetValue(BusyPoll);
            if (busyPoll > 0 && server is not null)
            {
                throw new CliException($"--busy-poll: applies to the in-process responder, not to --server {server}.");
            }

            var protocol = parse.GetValue(Protocol)!;
            var request = parse.GetValue(Request);
            var response = protocol == RrProtocols.Sockperf ? ReadSockperfResponse(parse, request, server) : parse.GetValue(Response);
            if (protocol == RrProtocols.Salvo && request < RrWire.MinRequest)
            {
                throw new CliException($"--request: {request} is below {RrWire.MinRequest}, the smallest salvo request (its header and the response size).");
            }

            var address = CommonOptions.ParseLoopbackAddress(parse.GetValue(Bind)!);
            if (server is not null && parse.GetResult(Bind) is { Implicit: false })
            {
                throw new CliException("-B/--bind: applies to the in-process responder only; with --server the server's address decides.");
            }

            var (clientCpu, responderCpu) = CpuPlacement.Choose(parse.GetValue(NoPin), (parse.GetValue(ClientCpu), "--client-cpu"), (parse.GetValue(ResponderCpu), "--responder-cpu"));
            return new RrSettings(request, response, p, connections,
                seconds ?? parse.GetValue(Duration), parse.GetValue(Warmup), rate, server, parse.GetValue(Timeout), responder, busyPoll, backend,
                clientCpu, server is null ? responderCpu : null, server is null ? address.ToString() : null, protocol, parse.GetValue(AfXdpBusyPoll),
                parse.GetValue(WarmupJitIdle));
        }

        /// <summary>A sockperf server answers with the request's own bytes, and only a remote one speaks sockperf.</summary>
        private int ReadSockperfResponse(ParseResult parse, int request, string? server)
        {
            if (server is null)
            {
                throw new CliException("--protocol: sockperf needs --server HOST:PORT (a 'sockperf server', or a 'salvo server'); the in-process responder speaks salvo only.");
            }

            var response = parse.GetValue(Response);
            if (parse.GetResult(Response) is { Implicit: false } && response != request)
            {
                throw new CliException($"--response: a sockperf server answers with the request's size ({request} bytes), not {response}; leave --response out with --protocol sockperf.");
            }

            return request;
        }
    }
}
