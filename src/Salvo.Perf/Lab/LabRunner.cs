using System.Globalization;
using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Lab;

/// <summary>
/// Runs <c>salvo lab</c>'s rounds: in each, every datagrams/s point (each size, each receiver in turn, all fed by C's
/// sendmmsg sender, or Salvo's where no C compiler builds C's) and then every request/response point (each level, each path in turn), so drift on a shared host
/// spreads over all paths alike. Each end is a process started for its point and ended after it; a path whose
/// process refuses to start (a backend not available here) is not tried again, and its rows say why.
/// </summary>
internal sealed class LabRunner(LabSettings settings, CliConsole console, CancellationToken cancellationToken)
{
    private const int RatePort = 47_400;
    private const int RrPort = 47_401;

    /// <summary>Seconds the sender keeps sending past the receiver's warm-up and window, unless ended sooner.</summary>
    private const double SenderSlackSeconds = 10;

    /// <summary>What a receiver or responder gets to open its socket (AF_XDP attaches a program) and print it is ready.</summary>
    private static readonly TimeSpan s_readyTimeout = TimeSpan.FromSeconds(30);

    /// <summary>The wait for a measuring process beyond its own seconds: start-up, the first datagram, its report.</summary>
    private static readonly TimeSpan s_exitMargin = TimeSpan.FromSeconds(30);

    private readonly Dictionary<string, string> _refused = [];
    private readonly Dictionary<(string Path, int Size), Samples> _rates = [];
    private readonly Dictionary<(string Path, int Parallel), Samples> _rr = [];
    private string? _udplimit;
    private VethLab? _lab;

    /// <summary>Where each end runs, for the report.</summary>
    public static string Placement(LabSettings settings, string hostA, string hostB) =>
        $"receiver and responder in {hostB} ({VethLab.AddressB}) pinned to CPU {settings.ReceiverCpu}; sender and client in {hostA} ({VethLab.AddressA}) pinned to CPU {settings.SenderCpu} (taskset); veth MTU {VethLab.Mtu}";

    public LabReport Run()
    {
        var environment = EnvironmentInfo.Capture();
        try
        {
            _udplimit = settings.CCompiler is { } compiler ? CReference.Build(CReference.BundledSource, compiler, CReference.CacheFolder()) : null;
            if (settings.CSkipped is { } skipped)
            {
                _refused[LabPaths.C] = skipped;
                console.Note($"lab: C rows {skipped}; Salvo's own sender feeds the datagrams/s points");
            }

            using var lab = new VethLab();
            _lab = lab;
            var placement = Placement(settings, lab.HostA, lab.HostB);
            console.Note($"lab: {placement}");
            for (var round = 1; round <= settings.Rounds; round++)
            {
                foreach (var size in settings.Sizes)
                {
                    foreach (var path in settings.Paths)
                    {
                        console.Note($"lab: round {round}/{settings.Rounds}, {path} receiving {size} B datagrams");
                        Sample(_rates, (path, size), path, () => MeasureRate(path, size));
                    }
                }

                foreach (var parallel in settings.ParallelLevels)
                {
                    foreach (var path in settings.Paths)
                    {
                        console.Note($"lab: round {round}/{settings.Rounds}, {path} request/response, {parallel} in flight");
                        Sample(_rr, (path, parallel), path, () => MeasureRr(path, parallel));
                    }
                }
            }

            return new LabReport("lab", environment, settings, placement,
                [.. settings.Sizes.SelectMany(size => settings.Paths.Select(path => RatePoint(path, size)))],
                [.. settings.ParallelLevels.SelectMany(parallel => settings.Paths.Select(path => RrPoint(path, parallel)))],
                EnvironmentInfo.ReadLoadAverage() ?? string.Empty);
        }
        finally
        {
            _lab = null;
        }
    }

    private void Sample<TKey>(Dictionary<TKey, Samples> table, TKey key, string path, Func<Outcome> measure)
        where TKey : notnull
    {
        if (!table.TryGetValue(key, out var samples))
        {
            table[key] = samples = new Samples();
        }

        if (_refused.TryGetValue(path, out var refusal))
        {
            samples.Failure = refusal;
            return;
        }

        var outcome = measure();
        if (outcome.Refusal is { } reason)
        {
            _refused[path] = reason;
            samples.Failure = reason;
        }
        else if (outcome.Failure is { } failure)
        {
            samples.Failure = failure;
            console.Note($"lab: {path}: {failure}");
        }
        else
        {
            samples.Add(outcome);
        }
    }

    private Outcome MeasureRate(string path, int size)
    {
        var lab = _lab!;
        var port = Text(RatePort);
        var seconds = Text(settings.Seconds);
        string[] receiver = LabPaths.Backend(path) is { } backend
            ? [.. SalvoItself.Command(), "lab", "receive", "-p", port, "--size", Text(size), "-t", seconds, "--first-wait", "10", "--warmup", Text(settings.WarmupSeconds), .. backend]
            : [_udplimit!, "recv", "-m", "recvmmsg", "-a", VethLab.AddressB, "-t", seconds, "-p", port, "-W", "10"];
        using var receiving = Start(lab.HostB, settings.ReceiverCpu, receiver, $"the {path} receiver");
        if (receiving.WaitForLine(LabReceiveCommand.Ready, s_readyTimeout, cancellationToken) is { } notReady)
        {
            return Outcome.Refused(notReady);
        }

        // The sender outlasts the receiver's window, which opens at the first datagram, by far (a receiver starved on a
        // busy host once saw the sender end before its first datagram), and is ended when the receiver is done: its
        // own figures are not used. -k keeps it sending through a port-unreachable.
        var sendSeconds = Text(settings.WarmupSeconds + settings.Seconds + SenderSlackSeconds);
        string[] sender = _udplimit is not null
            ? [_udplimit, "send", "-m", "sendmmsg", "-a", VethLab.AddressB, "-s", Text(size), "-t", sendSeconds, "-p", port, "-k"]
            : [.. SalvoItself.Command(), "lab", "send", "--to", VethLab.AddressB, "-p", port, "--size", Text(size), "-t", sendSeconds];
        using var sending = Start(lab.HostA, settings.SenderCpu, sender, _udplimit is not null ? "C's sender" : "Salvo's sender");
        var output = receiving.WaitForExit(TimeSpan.FromSeconds(settings.WarmupSeconds + settings.Seconds) + s_exitMargin, cancellationToken);
        sending.Stop();
        var result = output is null ? null : ResultLine.Find(output);
        if (result is null || result.ContainsKey("error") || !result.ContainsKey("dgrams"))
        {
            return Outcome.Failed($"{size} B: the receiver reported no figures ({(output is null ? "ran past its time" : receiving.Reason())}); sender: {sending.Reason()}");
        }

        var datagrams = ResultLine.Number(result, "dgrams");
        var cpu = ResultLine.Number(result, "cpu_user") + ResultLine.Number(result, "cpu_sys");
        return new Outcome(datagrams / ResultLine.Number(result, "dur"), datagrams > 0 ? cpu * 1e9 / datagrams : 0, 0)
        {
            Backend = result.GetValueOrDefault("method"),
        };
    }

    private Outcome MeasureRr(string path, int parallel)
    {
        var lab = _lab!;
        var port = Text(RrPort);
        var bytes = Text(settings.RequestBytes);
        var backend = LabPaths.Backend(path);
        var (server, ready) = backend is not null
            ? ((string[])[.. SalvoItself.Command(), "server", "-B", VethLab.AddressB, "-p", port, .. backend, "-i", "0"], "listening on")
            : ([_udplimit!, "ppserver", "-a", VethLab.AddressB, "-p", port, "-r", bytes, "-t", Text(settings.WarmupSeconds + settings.Seconds + s_exitMargin.TotalSeconds), "-I", "5"], "READY");
        using var responding = Start(lab.HostB, settings.ReceiverCpu, server, $"the {path} responder");
        if (responding.WaitForLine(ready, s_readyTimeout, cancellationToken) is { } notReady)
        {
            return Outcome.Refused(notReady);
        }

        string[] client = backend is not null
            ? [.. SalvoItself.Command(), "rr", "--server", $"{VethLab.AddressB}:{port}", "-P", Text(parallel), "--request", bytes, "--response", bytes,
                "-t", Text(settings.Seconds), "--warmup", Text(settings.WarmupSeconds), .. backend, "--json"]
            : [_udplimit!, "ppclient", "-a", VethLab.AddressB, "-p", port, "-n", Text(parallel), "-q", bytes, "-t", Text(settings.Seconds), "-w", Text(settings.WarmupSeconds)];
        using var asking = Start(lab.HostA, settings.SenderCpu, client, $"the {path} client");
        var output = asking.WaitForExit(TimeSpan.FromSeconds(settings.WarmupSeconds + settings.Seconds) + s_exitMargin, cancellationToken);
        responding.Stop();
        var outcome = output is null ? null : backend is not null ? FromRrJson(output) : FromPpClient(output);
        return outcome ?? Outcome.Failed($"{parallel} in flight: the client reported no figures ({(output is null ? "ran past its time" : asking.Reason())}); responder: {responding.Reason()}");
    }

    /// <summary>requests/s, p50 and p99 from <c>salvo rr --json</c>; null when it printed no document.</summary>
    internal static Outcome? FromRrJson(string output)
    {
        var start = output.IndexOf('{', StringComparison.Ordinal);
        var end = output.LastIndexOf('}');
        if (start < 0 || end < start)
        {
            return null;
        }

        try
        {
            using var document = JsonDocument.Parse(output[start..(end + 1)]);
            var result = document.RootElement.GetProperty("result");
            var latency = result.GetProperty("latency");
            return new Outcome(result.GetProperty("requestsPerSecond").GetDouble(), latency.GetProperty("p50Microseconds").GetDouble(), latency.GetProperty("p99Microseconds").GetDouble());
        }
        catch (Exception e) when (e is JsonException or KeyNotFoundException or InvalidOperationException)
        {
            return null;
        }
    }

    /// <summary>requests/s, p50 and p99 from udplimit ppclient's RESULT line; null without one.</summary>
    internal static Outcome? FromPpClient(string output) =>
        ResultLine.Find(output) is { } result && result.ContainsKey("rps")
            ? new Outcome(ResultLine.Number(result, "rps"), ResultLine.Number(result, "p50"), ResultLine.Number(result, "p99"))
            : null;

    private LabRatePoint RatePoint(string path, int size)
    {
        var samples = _rates[(path, size)];
        return new LabRatePoint(path, size, samples.Median(samples.First), samples.Median(samples.Second), samples.Backend, samples.First, samples.Second, samples.NotMeasured);
    }

    private LabRrPoint RrPoint(string path, int parallel)
    {
        var samples = _rr[(path, parallel)];
        return new LabRrPoint(path, parallel, samples.Median(samples.First), samples.Median(samples.Second), samples.Median(samples.Third), samples.First, samples.NotMeasured);
    }

    /// <summary>One end of a point: <paramref name="command"/> in namespace <paramref name="host"/> on CPU <paramref name="cpu"/>.</summary>
    private static ChildProcess Start(string host, int cpu, string[] command, string name) =>
        ChildProcess.Start(command[0], command[1..], new ChildProcessOptions { Namespace = host, Cpu = cpu, Name = name });

    private static string Text(double value) => value.ToString(CultureInfo.InvariantCulture);

    /// <summary>One point's figures (rate and CPU, or requests/s, p50 and p99), or why there are none.</summary>
    internal sealed record Outcome(double First, double Second, double Third)
    {
        public string? Backend { get; init; }

        public string? Failure { get; init; }

        public string? Refusal { get; init; }

        public static Outcome Failed(string why) => new(0, 0, 0) { Failure = why };

        public static Outcome Refused(string why) => new(0, 0, 0) { Refusal = why };
    }

    /// <summary>A point's figures round by round.</summary>
    private sealed class Samples
    {
        public List<double> First { get; } = [];

        public List<double> Second { get; } = [];

        public List<double> Third { get; } = [];

        public string? Backend { get; private set; }

        public string? Failure { get; set; }

        /// <summary>Why there is no figure: only when no round measured one.</summary>
        public string? NotMeasured => First.Count == 0 ? Failure ?? "not measured" : null;

        public void Add(Outcome outcome)
        {
            First.Add(outcome.First);
            Second.Add(outcome.Second);
            Third.Add(outcome.Third);
            Backend = outcome.Backend ?? Backend;
        }

        public double? Median(List<double> values) => values.Count == 0 ? null : Spread.Of(values).Median;
    }
}
