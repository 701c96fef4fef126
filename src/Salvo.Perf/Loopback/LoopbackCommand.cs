using System.CommandLine;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Spectre.Console;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Loopback;

/// <summary><c>salvo loopback</c>: every method side by side on loopback (127.0.0.1 or ::1), interleaved, pinned, repeated.</summary>
internal static class LoopbackCommand
{
    /// <summary>Default payload sizes: small, a typical QUIC/VPN datagram under a 1,500-byte MTU, and near the limit.</summary>
    public static readonly int[] DefaultSizes = [64, 1380, 65000];

    /// <summary>The smallest loopback payload: the 8-byte sequence number.</summary>
    public const int MinPayload = 8;

    public static Command Create(CliConsole console)
    {
        var options = new LoopbackOptionSet();
        var command = new Command("loopback",
            "Sender and receiver on loopback in one process, each on its own thread, measuring every method in turn " +
            "(round-robin per repetition, so drift hits all alike). Pinning: on Linux each thread calls " +
            "sched_setaffinity(0, ...) through libc on itself (.NET has no per-thread affinity API); the sender goes on " +
            "the first allowed CPU and the receiver on the second. Methods: " +
            string.Join("; ", LoopbackMethods.All.Select(m => $"{m.Name} = {m.Description}")) + ".");
        options.AddTo(command);
        command.SetAction((parse, cancellationToken) =>
        {
            var settings = options.Read(parse);
            return Task.FromResult(Run(console, settings, cancellationToken));
        });
        return command;
    }

    /// <summary>
    /// Runs the measurement and prints it; returns the exit code. A stop signal mid-run prints the table of the points
    /// measured so far, then ends the run as cancelled (exit 128 + the signal's number).
    /// </summary>
    public static int Run(CliConsole console, LoopbackRunOptions run, CancellationToken cancellationToken)
    {
        var report = Measure(console, run, cancellationToken, partialWhenStopped: true);
        if (cancellationToken.IsCancellationRequested)
        {
            var total = run.Repetitions * run.PayloadBytes.Count * run.Methods.Count;
            console.Note($"salvo loopback: stopped after {report.Samples.Count} of {total} points; the report holds those.");
            report = report with { CutShort = true };
        }

        Print(console, report);
        cancellationToken.ThrowIfCancellationRequested();
        return 0;
    }

    /// <summary>Runs the points with progress on <paramref name="console"/> and returns the report.</summary>
    /// <param name="console">Where progress goes.</param>
    /// <param name="run">What to measure.</param>
    /// <param name="cancellationToken">Stops the run.</param>
    /// <param name="partialWhenStopped">When the run is stopped after at least one point, return those points instead of throwing.</param>
    public static LoopbackReport Measure(CliConsole console, LoopbackRunOptions run, CancellationToken cancellationToken, bool partialWhenStopped = false)
    {
        var environment = EnvironmentInfo.Capture();
        var settings = new LoopbackSettings(
            run.Methods.Select(m => m.Name).ToArray(), run.PayloadBytes, run.DurationSeconds, run.WarmupSeconds,
            run.Repetitions, run.SenderCpu is not null, run.SenderCpu, run.ReceiverCpu, run.SocketBufferBytes,
            run.SenderCpu is null ? PinNote(run) : null, run.Address.ToString(), run.Backend, run.Connected);
        var runner = new LoopbackRunner(run);
        var measured = new List<LoopbackSample>();
        runner.PointDone += (sample, _, _) => measured.Add(sample);
        runner.PointDone += (sample, index, total) =>
        {
            console.Event(new LoopbackPointEvent("point", index, total, sample), PerfJson.Compact.LoopbackPointEvent);
            if (!console.IsLive)
            {
                console.Line(DescribePoint(sample, index, total));
            }
        };

        IReadOnlyList<LoopbackSample> samples;
        try
        {
            samples = RunPoints(console, run, runner, settings, cancellationToken);
        }
        catch (OperationCanceledException) when (partialWhenStopped && cancellationToken.IsCancellationRequested && measured.Count > 0)
        {
            samples = measured;
        }

        if (runner.PinFailure is { } failure)
        {
            settings = settings with { Pinned = false, PinNote = failure };
        }

        return new LoopbackReport("loopback", environment, settings, LoopbackResult.Summarize(samples, run.Methods), samples, EnvironmentInfo.ReadLoadAverage());
    }

    private static IReadOnlyList<LoopbackSample> RunPoints(CliConsole console, LoopbackRunOptions run, LoopbackRunner runner, LoopbackSettings settings, CancellationToken cancellationToken)
    {
        IReadOnlyList<LoopbackSample> samples;
        if (console.IsLive)
        {
            samples = AnsiConsole.Progress()
                .AutoClear(false)
                .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn())
                .Start(context =>
                {
                    var task = context.AddTask("loopback", maxValue: run.Repetitions * run.PayloadBytes.Count * run.Methods.Count);
                    runner.Progress += p =>
                    {
                        var rate = p.ElapsedSeconds > 0 ? p.Received / p.ElapsedSeconds : 0;
                        task.Description = Markup.Escape($"rep {p.Repetition} {p.Method} {p.PayloadBytes} B: {Format.Count(rate)} dgram/s");
                    };
                    runner.PointDone += (sample, index, _) =>
                    {
                        task.Value = index;
                        context.Refresh();
                    };
                    return runner.Run(cancellationToken);
                });
        }
        else
        {
            console.Line($"salvo loopback: {string.Join(", ", settings.Methods)} x {string.Join(", ", run.PayloadBytes)} B x {run.Repetitions} repetitions, {run.DurationSeconds} s each; {Pinning(settings)}{(run.Connected ? "; senders connected" : string.Empty)}");
            samples = runner.Run(cancellationToken);
        }

        return samples;
    }

    /// <summary>Prints the summary table (text) or the document (JSON).</summary>
    public static void Print(CliConsole console, LoopbackReport report)
    {
        console.Document(report, PerfJson.Indented.LoopbackReport, PerfJson.Compact.LoopbackReport);
        if (console.Format != OutputFormat.Text)
        {
            return;
        }

        console.Line(string.Empty);
        var atEnd = report.LoadAverageAtEnd is { } end ? $" (at the end {end})" : string.Empty;
        console.Line($"{report.Environment.Describe()}{atEnd}; {Pinning(report.Settings)}.");
        ToTable(report.Results).Write(console);
        foreach (var line in Footnotes(report).Concat(report.Warnings))
        {
            console.Line(line);
        }

        var scope = report.Results.FirstOrDefault()?.CpuScope;
        if (scope == "process")
        {
            console.Line("CPU is the whole process's (no per-thread CPU clock on this OS).");
        }
    }

    /// <summary>The summary as a table.</summary>
    public static TextTable ToTable(IEnumerable<LoopbackResult> results)
    {
        var table = new TextTable("method", "backend", "payload B", "received dgram/s", "spread", "Gbit/s", "sender CPU", "receiver CPU",
            "alloc B/dgram", "GCs", "total loss", "total RcvbufErrors", "vs naive", "vs socket");
        foreach (var r in results)
        {
            table.Add(r.Method, r.Backend?.ToString() ?? "-", Format.Count(r.PayloadBytes), Format.Count(r.DatagramsPerSecond),
                r.SpreadPercent is { } spread ? Format.Percent(spread) : "-",
                Format.Fixed(r.GbitsPerSecond, 2), Format.Percent(r.SenderCpuPercent), Format.Percent(r.ReceiverCpuPercent),
                Format.Fixed(r.AllocatedBytesPerDatagram, 1), Format.Fixed(r.GcCount, 0), Format.Percent(r.LossPercent),
                r.KernelRcvbufErrors is { } k ? Format.Count(k) : "-",
                RatioCell(r.RatioToNaive, r.NaiveBaselineCollapsed, LoopbackMethods.NaiveBaseline),
                RatioCell(r.RatioToSocket, r.SocketBaselineCollapsed, LoopbackMethods.Baseline));
        }

        return table;
    }

    // The word goes beside the number, where the eye reads the ratio: a footnote alone is read after the number is quoted.
    private static string RatioCell(double? ratio, bool collapsed, string baseline) =>
        collapsed && ratio is not null ? $"{Format.Ratio(ratio)} ({baseline} collapsed)" : Format.Ratio(ratio);

    /// <summary>What the columns summarise, and what each method in the table is.</summary>
    public static IEnumerable<string> Footnotes(LoopbackReport report)
    {
        var repetitions = report.Settings.Repetitions;
        var spread = repetitions > 1
            ? $"received dgram/s to GCs are medians of {repetitions} repetition(s), spread is (max - min) / median of received dgram/s"
            : "received dgram/s to GCs are from one repetition (spread -: there is no spread with one repetition)";
        yield return "Per row: received dgram/s is counted at the receiver, per second of its measured window (the sender's rate is sentPerSecond in --json); " +
            $"{spread}; total loss and total RcvbufErrors count all {repetitions} repetition(s) together (RcvbufErrors is system-wide); " +
            "vs naive and vs socket are received dgram/s over that method's at the same size.";
        foreach (var name in report.Results.Select(r => r.Method).Distinct())
        {
            if (LoopbackMethods.Find(name) is { } method)
            {
                yield return $"  {name} = {method.Description}";
            }
        }
    }

    private static string DescribePoint(LoopbackSample s, int index, int total) =>
        $"[{index,3}/{total}] rep {s.Repetition} {s.Method,-11} {s.PayloadBytes,6} B  {Format.Count(s.DatagramsPerSecond),11} dgram/s received  " +
        $"{Format.Fixed(s.GbitsPerSecond, 2),6} Gbit/s  tx CPU {Format.Percent(s.SenderCpuPercent),6}  rx CPU {Format.Percent(s.ReceiverCpuPercent),6}  " +
        $"alloc {Format.Fixed(s.AllocatedBytesPerDatagram, 1)} B/dgram  loss {Format.Percent(s.LossPercent)}";

    private static string Pinning(LoopbackSettings s) => s.Pinned
        ? $"sender pinned to CPU {s.SenderCpu}, receiver to CPU {s.ReceiverCpu}"
        : $"not pinned ({s.PinNote})";

    private static string PinNote(LoopbackRunOptions run) => run.SenderCpu is null && HostOs.IsLinux
        ? "--no-pin or fewer than 2 allowed CPUs"
        : "pinning needs Linux";

    /// <summary>The loopback command's options and how they become <see cref="LoopbackRunOptions"/>.</summary>
    internal sealed class LoopbackOptionSet
    {
        public Option<int[]> Lengths { get; } = CommonOptions.Lengths(DefaultSizes, MinPayload, "Payload sizes in bytes");

        public Option<double> Duration { get; } = CommonOptions.Seconds("--time", "-t", 1.5, "Measured seconds per point.");

        public Option<double> Warmup { get; } = CommonOptions.Seconds("--warmup", null, 0.3, "Unmeasured seconds before each point's window (0: none).", min: 0.01, allowZero: true);

        public Option<int> Repeat { get; } = CommonOptions.Int("--repeat", null, "COUNT", 3, 1, 100, "Repetitions (rounds over all methods and sizes); the table shows the median.");

        public Option<string> Methods { get; } = new("--methods", "-m")
        {
            Description = $"Methods to run, comma-separated, from: {string.Join(", ", LoopbackMethods.All.Select(m => m.Name))}. Defaults to {string.Join(',', LoopbackMethods.DefaultNames)}.",
            HelpName = "NAMES",
            DefaultValueFactory = _ => string.Join(',', LoopbackMethods.DefaultNames),
        };

        public Option<int[]> Workers { get; } = new("--workers", "-w")
        {
            Description = $"Also measure a DatagramServer with each of these worker counts (methods server-w1, server-w2, ...), for example 1,2,4,8; each 1 to {CommonOptions.Number(CommonOptions.MaxWorkers)}. Defaults to none.",
            HelpName = "N,N,...",
            CustomParser = r =>
            {
                var counts = new List<int>();
                foreach (var token in r.Tokens)
                {
                    counts.AddRange(ValueParsers.ParseCounts(token.Value, "--workers", CommonOptions.MaxWorkers, out var error));
                    if (error is not null)
                    {
                        r.AddError(error);
                    }
                }

                return counts.ToArray();
            },
            DefaultValueFactory = _ => [],
            AllowMultipleArgumentsPerToken = true,
        };

        public Option<int> ServerSenders { get; } = CommonOptions.Int("--server-senders", null, "THREADS", 0, 0, 1024,
            "Sender threads feeding each server-wN point; 0 = one per worker, up to half the CPUs (one on two CPUs).");

        public Option<bool> NoPin { get; } = new("--no-pin")
        {
            Description = "Do not pin the sender and receiver threads to CPUs. Defaults to pinning on Linux when 2 or more CPUs are allowed.",
        };

        public Option<int> SenderCpu { get; } = CommonOptions.Int("--sender-cpu", null, "CPU", -1, -1, 1023, "CPU for the sender thread; -1 = the first allowed CPU.");

        public Option<int> ReceiverCpu { get; } = CommonOptions.Int("--receiver-cpu", null, "CPU", -1, -1, 1023, "CPU for the receiver thread; -1 = the second allowed CPU.");

        public Option<string> Backend { get; } = BackendOption.Create("the salvo, salvo-gso, salvo-async and server-wN methods (salvo-uring and salvo-uring-gso always use uring)");

        public Option<int> Buffer { get; } = CommonOptions.Int("--buffer", null, "BYTES", 4 * 1024 * 1024, 4096, 1 << 30, "SO_RCVBUF and SO_SNDBUF in bytes for every method (the kernel caps them at rmem_max/wmem_max).");

        public Option<string> Bind { get; } = CommonOptions.LoopbackBind();

        public Option<bool> Connect { get; } = new("--connect")
        {
            Description = "Connect each sender's socket to the receiver and send without a destination (Socket.Connect + Send, " +
                "DatagramSocket.Connect + batches to DatagramAddress.None), as a client with one peer does; compare with C's " +
                "connected sender. The server-wN senders stay unconnected. Defaults to off: every send names the receiver.",
        };

        public void AddTo(Command command)
        {
            command.Options.Add(Lengths);
            command.Options.Add(Duration);
            command.Options.Add(Warmup);
            command.Options.Add(Repeat);
            command.Options.Add(Methods);
            command.Options.Add(Workers);
            command.Options.Add(ServerSenders);
            command.Options.Add(NoPin);
            command.Options.Add(SenderCpu);
            command.Options.Add(ReceiverCpu);
            command.Options.Add(Buffer);
            command.Options.Add(Backend);
            command.Options.Add(Bind);
            command.Options.Add(Connect);
        }

        public LoopbackRunOptions Read(ParseResult parse, int[]? sizes = null, int? repetitions = null, double? seconds = null)
        {
            var methods = ParseMethods(parse.GetValue(Methods)!)
                .Concat(parse.GetValue(Workers)!.Distinct().Select(n => (ILoopbackMethod)new ServerMethod(n, parse.GetValue(ServerSenders))))
                .GroupBy(m => m.Name, StringComparer.OrdinalIgnoreCase).Select(g => g.First()).ToArray();
            var (senderCpu, receiverCpu) = CpuPlacement.Choose(parse.GetValue(NoPin), (parse.GetValue(SenderCpu), "--sender-cpu"), (parse.GetValue(ReceiverCpu), "--receiver-cpu"));
            return new LoopbackRunOptions(
                methods,
                sizes ?? parse.GetValue(Lengths)!,
                seconds ?? parse.GetValue(Duration),
                parse.GetValue(Warmup),
                repetitions ?? parse.GetValue(Repeat),
                senderCpu,
                receiverCpu,
                parse.GetValue(Buffer),
                CommonOptions.ParseLoopbackAddress(parse.GetValue(Bind)!),
                BackendOption.Read(parse, Backend),
                parse.GetValue(Connect));
        }

        public static IReadOnlyList<ILoopbackMethod> ParseMethods(string text)
        {
            var names = ValueParsers.SplitList(text, "-m/--methods", out var error);
            if (error is not null)
            {
                throw new CliException(error);
            }

            if (names.Length == 0)
            {
                throw new CliException("-m/--methods: name at least one method.");
            }

            return names.Distinct(StringComparer.OrdinalIgnoreCase).Select(name => LoopbackMethods.Find(name)
                ?? throw new CliException($"-m/--methods: unknown method '{name}'; known: {string.Join(", ", LoopbackMethods.All.Select(m => m.Name))}.")).ToArray();
        }
    }
}

/// <summary>A --json-stream event for one finished point.</summary>
/// <param name="Event">"point".</param>
/// <param name="Index">1-based point number.</param>
/// <param name="Total">Points in the run.</param>
/// <param name="Sample">The measurement.</param>
internal sealed record LoopbackPointEvent(string Event, int Index, int Total, LoopbackSample Sample);
