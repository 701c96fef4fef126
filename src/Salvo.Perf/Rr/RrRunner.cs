using System.Diagnostics;
using System.Net;
using System.Runtime;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Protocol;
using Salvo.Perf.TestServer.Sockperf;

namespace Salvo.Perf.Rr;

/// <summary>Runs one rr measurement: the connections' threads, the in-process responder when no server is given.</summary>
internal static class RrRunner
{
    /// <summary>The longest warm-up while the JIT keeps compiling: past it the window opens anyway and the report says so.</summary>
    internal const double MostWarmupSeconds = 10;

    /// <summary>How often the warm-up looks at the JIT's count of compiled methods.</summary>
    private static readonly TimeSpan JitPollInterval = TimeSpan.FromMilliseconds(50);

    /// <summary>How long a stop waits for each connection's thread: a receive waits 10 ms at a time, a pacer sleeps less.</summary>
    private static readonly TimeSpan StopWait = TimeSpan.FromSeconds(5);

    /// <summary>How often progress is reported.</summary>
    private static readonly TimeSpan ProgressInterval = TimeSpan.FromMilliseconds(250);

    /// <summary>
    /// Runs <paramref name="settings"/>; <paramref name="progress"/> gets ("interval", seconds, completed) about every
    /// 250 ms, and ("measuring", ...) once when the measured window opens.
    /// </summary>
    public static RrResult Run(RrSettings settings, Action<string, double, long>? progress, CancellationToken cancellationToken)
    {
        var loopback = new IPEndPoint(settings.Address is { } address ? IPAddress.Parse(address) : IPAddress.Loopback, 0);
        using var responder = settings.Server is not null ? null
            : new RrServerResponder(loopback, 1, TimeSpan.FromTicks((long)(settings.BusyPollMicroseconds * 10)), settings.Backend, settings.ResponderCpu);
        var (target, responderBackend) = responder is null
            ? (Resolve(settings.Server!), (DatagramBackend?)null)
            : (responder.LocalEndPoint, responder.Backend);
        var cpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
        var wall = Stopwatch.StartNew();
        var begin = MonotonicClock.NowNanoseconds();
        var warmup = (long)(settings.WarmupSeconds * 1e9);
        var duration = (long)(settings.DurationSeconds * 1e9);
        var timeout = settings.TimeoutMilliseconds * 1_000_000L;
        var plan = settings.WarmupJitIdleSeconds > 0 ? RrPlan.OpenedLater(timeout) : new RrPlan(begin + warmup, begin + warmup + duration, timeout);

        var connections = Enumerable.Range(0, settings.Connections).Select(_ => new RrConnection(target, plan, CreateCodec(settings), settings.ResponseBytes, settings.Backend, settings.AfXdpBusyPoll)).ToArray();
        var pinFailures = new PinFailures();
        var threads = new List<Thread>();
        try
        {
            for (var i = 0; i < connections.Length; i++)
            {
                var connection = connections[i];
                if (settings.RatePerSecond > 0)
                {
                    var rate = settings.RatePerSecond / connections.Length;
                    threads.Add(Start($"salvo-rr-pace-{i}", settings.ClientCpu, pinFailures, () => connection.RunPacer(rate, begin)));
                    threads.Add(Start($"salvo-rr-recv-{i}", settings.ClientCpu, pinFailures, connection.RunPacedReceiver));
                }
                else
                {
                    var inFlight = (settings.Parallel / connections.Length) + (i < settings.Parallel % connections.Length ? 1 : 0);
                    threads.Add(Start($"salvo-rr-{i}", settings.ClientCpu, pinFailures, () => connection.RunClosedLoop(inFlight)));
                }
            }

            // The window's edges read the JIT's count and the process's CPU: read both once now, so that their first
            // calls are compiled during the warm-up rather than as the window opens.
            _ = JitInfo.GetCompiledMethodCount();
            _ = JitInfo.GetCompilationTime();
            _ = Environment.CpuUsage;
            var stopwatch = Stopwatch.StartNew();
            void Report(string name) => progress?.Invoke(name, stopwatch.Elapsed.TotalSeconds, connections.Sum(c => c.Completed));
            void Interval() => Report(RrIntervalEvent.Interval);
            var jitBusy = false;
            if (settings.WarmupJitIdleSeconds > 0)
            {
                var settling = new JitSettledWarmup(begin, warmup, (long)(settings.WarmupJitIdleSeconds * 1e9), (long)(MostWarmupSeconds * 1e9));
                var polls = 0;
                while (!settling.IsOver(MonotonicClock.NowNanoseconds(), JitInfo.GetCompiledMethodCount()))
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    Thread.Sleep(JitPollInterval);
                    if (++polls % 5 == 0)
                    {
                        Interval();
                    }
                }

                plan.Open(MonotonicClock.NowNanoseconds(), duration);
                jitBusy = settling.EndedBusy;
            }
            else
            {
                SleepUntil(plan.WarmupEndNanoseconds, Interval, cancellationToken);
            }

            var compiledAtOpen = JitInfo.GetCompiledMethodCount();
            var jitTimeAtOpen = JitInfo.GetCompilationTime();
            var cpuAtOpen = Environment.CpuUsage.TotalTime;
            Report(RrIntervalEvent.Measuring);
            SleepUntil(plan.MeasureEndNanoseconds, Interval, cancellationToken);
            var cpuWhileMeasuring = Environment.CpuUsage.TotalTime - cpuAtOpen;
            var compiledInWindow = JitInfo.GetCompiledMethodCount() - compiledAtOpen;
            var jitTimeInWindow = JitInfo.GetCompilationTime() - jitTimeAtOpen;

            var limit = stopwatch.Elapsed + TimeSpan.FromSeconds(10 + (settings.TimeoutMilliseconds / 1000.0));
            foreach (var thread in threads)
            {
                while (!thread.Join(250))
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    Interval();
                    if (stopwatch.Elapsed > limit)
                    {
                        throw new TimeoutException("An rr connection did not stop.");
                    }
                }
            }

            var cpuPercent = (Process.GetCurrentProcess().TotalProcessorTime - cpuBefore).TotalSeconds / wall.Elapsed.TotalSeconds * 100;
            return Summarize(settings, connections) with
            {
                ProcessCpuPercent = cpuPercent,
                BusyPollDatagrams = responder?.BusyPollDatagrams ?? 0,
                ResponderBackend = responderBackend,
                PinFailure = pinFailures.First ?? responder?.PinFailure,
                WarmupSeconds = (plan.WarmupEndNanoseconds - begin) / 1e9,
                JitBusyWhenMeasuringBegan = jitBusy,
                MethodsCompiledWhileMeasuring = compiledInWindow,
                JitMillisecondsWhileMeasuring = jitTimeInWindow.TotalMilliseconds,
                ProcessCpuMicrosecondsPerRequest = PerRequest(cpuWhileMeasuring, connections.Sum(c => c.CompletedInWindow)),
            };
        }
        catch (OperationCanceledException)
        {
            // Stopped (SIGTERM, Ctrl+C): the connections' threads end at their next turn before their sockets are
            // disposed; disposed under a thread blocked in its receive, the socket's ObjectDisposedException ended
            // the process (exit 134) instead of the stop.
            plan.Stop();
            foreach (var thread in threads)
            {
                thread.Join(StopWait);
            }

            throw;
        }
        finally
        {
            foreach (var connection in connections)
            {
                connection.Dispose();
            }
        }
    }

    /// <summary>
    /// Sleeps until <paramref name="untilNanoseconds"/> (monotonic), reporting progress about every 250 ms. The
    /// clients' threads keep their own clocks; this thread only samples the JIT at the window's edges.
    /// </summary>
    private static void SleepUntil(long untilNanoseconds, Action report, CancellationToken cancellationToken)
    {
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var left = untilNanoseconds - MonotonicClock.NowNanoseconds();
            if (left <= 0)
            {
                return;
            }

            Thread.Sleep(TimeSpan.FromTicks(Math.Min(left / 100, ProgressInterval.Ticks)) + TimeSpan.FromMilliseconds(1));
            report();
        }
    }

    private static RrResult Summarize(RrSettings settings, RrConnection[] connections)
    {
        if (settings.RatePerSecond > 0)
        {
            foreach (var connection in connections)
            {
                connection.SettleFixedRate();
            }
        }

        var latency = new LatencyHistogram();
        foreach (var connection in connections)
        {
            latency.Add(connection.Latency);
        }

        var completed = connections.Sum(c => c.CompletedInWindow);
        var statistics = connections.Select(c => c.Statistics).ToArray();
        var refused = connections.Sum(c => c.Refused);
        if (connections.Sum(c => c.Completed) == 0)
        {
            var where = settings.Server ?? "the in-process responder";
            throw new CliException(
                refused > 0
                    ? $"--server: {where} refused the requests (ICMP port unreachable); is {(settings.Protocol == RrProtocols.Sockperf ? "'sockperf server'" : "'salvo server'")} running there?"
                    : $"--server: no response from {where} within {settings.DurationSeconds + settings.WarmupSeconds} s.",
                CliException.FailureExitCode);
        }

        return new RrResult(
            settings.RatePerSecond > 0 ? "fixed-rate" : "closed-loop",
            settings.Parallel,
            settings.Connections,
            settings.RequestBytes,
            settings.ResponseBytes,
            completed / settings.DurationSeconds,
            completed,
            connections.Sum(c => c.Sent),
            connections.Sum(c => c.Lost),
            connections.Sum(c => c.Late),
            connections.Sum(c => c.Malformed),
            refused,
            latency.Summarize())
        {
            ClientBackend = connections[0].Backend,
            RequestsPerSendCall = PerCall(statistics.Sum(s => s.DatagramsSent), statistics.Sum(s => s.SendCalls)),
            ResponsesPerReceiveCall = PerCall(statistics.Sum(s => s.DatagramsReceived), statistics.Sum(s => s.ReceiveCalls)),
        };
    }

    private static double PerCall(long items, long calls) => calls == 0 ? 0 : (double)items / calls;

    private static double PerRequest(TimeSpan cpu, long requests) => requests == 0 ? 0 : cpu.TotalMicroseconds / requests;

    /// <summary>One connection's codec for <see cref="RrSettings.Protocol"/>.</summary>
    internal static IRrCodec CreateCodec(RrSettings settings)
    {
        if (settings.Protocol != RrProtocols.Sockperf)
        {
            return new SalvoRrCodec(settings.RequestBytes, settings.ResponseBytes);
        }

        // Closed loop: each connection's share of -P, plus the requests replaced after a timeout. Fixed rate:
        // twice what the connection sends within one timeout, so an answer is recognised until it counts as lost.
        var outstanding = settings.RatePerSecond > 0
            ? settings.RatePerSecond / settings.Connections * settings.TimeoutMilliseconds / 1000 * 2
            : 4.0 * settings.Parallel / settings.Connections;
        return new SockperfRrCodec(settings.RequestBytes, (int)Math.Min(outstanding, SockperfRrCodec.MaxRing));
    }

    private static IPEndPoint Resolve(string server)
    {
        var (host, port) = ValueParsers.ParseHostPort(server, "--server");
        if (IPAddress.TryParse(host, out var address))
        {
            return new IPEndPoint(address, port);
        }

        try
        {
            var addresses = Dns.GetHostAddresses(host);
            return addresses.Length > 0
                ? new IPEndPoint(addresses[0], port)
                : throw new CliException($"--server: '{host}' has no address.", CliException.FailureExitCode);
        }
        catch (System.Net.Sockets.SocketException e)
        {
            throw new CliException($"--server: cannot resolve '{host}': {e.Message}", CliException.FailureExitCode);
        }
    }

    private static Thread Start(string name, int? cpu, PinFailures pinFailures, Action body)
    {
        var thread = new Thread(() =>
        {
            pinFailures.Pin(cpu);
            body();
        })
        { Name = name, IsBackground = true };
        thread.Start();
        return thread;
    }
}

/// <summary>How an rr run is set up.</summary>
/// <param name="RequestBytes">Bytes per request.</param>
/// <param name="ResponseBytes">Bytes per response.</param>
/// <param name="Parallel">Requests in flight (closed loop).</param>
/// <param name="Connections">Client sockets.</param>
/// <param name="DurationSeconds">Measured seconds.</param>
/// <param name="WarmupSeconds">Unmeasured seconds first.</param>
/// <param name="RatePerSecond">Fixed request rate, or 0 for closed loop.</param>
/// <param name="Server">HOST:PORT of a remote responder, or null for the in-process one.</param>
/// <param name="Responder">The in-process responder: "server" (a one-worker DatagramServer answering each batch in one batched send).</param>
/// <param name="BusyPollMicroseconds">With the server responder: microseconds its worker spins before blocking (0: off).</param>
/// <param name="Backend">The backend of the client sockets and of the in-process responder (--backend).</param>
/// <param name="TimeoutMilliseconds">When an unanswered request counts as lost.</param>
/// <param name="ClientCpu">The CPU every client thread is pinned to, or null when not pinned.</param>
/// <param name="ResponderCpu">The CPU the in-process responder's thread is pinned to, or null when not pinned (or remote).</param>
/// <param name="Address">The loopback address the in-process responder and the client sockets bind (-B); null with <paramref name="Server"/>.</param>
/// <param name="Protocol">The wire protocol: "salvo" (<see cref="RrWire"/>) or "sockperf" (sockperf's ping-pong, for a 'sockperf server').</param>
/// <param name="AfXdpBusyPoll">With --backend afxdp: the client sockets spin on their rings instead of sleeping in poll(2).</param>
/// <param name="WarmupJitIdleSeconds">After <paramref name="WarmupSeconds"/>, the warm-up goes on until the JIT has compiled nothing for this long (at most <see cref="RrRunner.MostWarmupSeconds"/> in all); 0 keeps the warm-up fixed.</param>
internal sealed record RrSettings(
    int RequestBytes,
    int ResponseBytes,
    int Parallel,
    int Connections,
    double DurationSeconds,
    double WarmupSeconds,
    double RatePerSecond,
    string? Server,
    int TimeoutMilliseconds,
    string Responder = "server",
    double BusyPollMicroseconds = 0,
    DatagramBackend Backend = DatagramBackend.Auto,
    int? ClientCpu = null,
    int? ResponderCpu = null,
    string? Address = "127.0.0.1",
    string Protocol = RrProtocols.Salvo,
    bool AfXdpBusyPoll = false,
    double WarmupJitIdleSeconds = 0);

/// <summary>The wire protocols rr speaks.</summary>
internal static class RrProtocols
{
    /// <summary>Salvo's own request/response header.</summary>
    public const string Salvo = "salvo";

    /// <summary>sockperf's ping-pong messages (a response is the request with the client flag cleared).</summary>
    public const string Sockperf = "sockperf";
}

/// <summary>The outcome of one rr run.</summary>
/// <param name="Mode">"closed-loop" or "fixed-rate".</param>
/// <param name="Parallel">Requests in flight (closed loop).</param>
/// <param name="Connections">Client sockets.</param>
/// <param name="RequestBytes">Bytes per request.</param>
/// <param name="ResponseBytes">Bytes per response.</param>
/// <param name="RequestsPerSecond">Responses per second in the measured window.</param>
/// <param name="Completed">Responses in the window.</param>
/// <param name="Sent">Requests sent in all (warm-up included).</param>
/// <param name="Lost">Requests never answered within the timeout.</param>
/// <param name="Late">Responses after their request was given up on, or duplicated.</param>
/// <param name="Malformed">Datagrams that were not valid responses.</param>
/// <param name="Refused">ICMP errors (nothing listening).</param>
/// <param name="Latency">Round-trip latency percentiles in microseconds (from the intended send time at a fixed rate).</param>
/// <param name="ProcessCpuPercent">CPU time of the whole process (clients and in-process responder) over the run, percent of one core.</param>
/// <param name="BusyPollDatagrams">Requests the server responder's worker picked up while busy polling, warm-up included (0 otherwise).</param>
/// <param name="ResponderBackend">The backend the in-process responder's socket reported; null against a --server.</param>
/// <param name="PinFailure">Why a thread could not be pinned as asked, or null when every pin held.</param>
/// <param name="ClientBackend">The backend the client sockets reported.</param>
/// <param name="RequestsPerSendCall">Requests the clients sent per send call (sendmmsg on the batched backend), warm-up included.</param>
/// <param name="ResponsesPerReceiveCall">Responses the clients took per receive call that returned any, warm-up included.</param>
/// <param name="HalfRoundTripLatency">With the sockperf protocol, <paramref name="Latency"/> halved: what sockperf itself reports as latency; null otherwise.</param>
/// <param name="WarmupSeconds">How long the warm-up lasted: --warmup, or longer while the JIT kept compiling.</param>
/// <param name="JitBusyWhenMeasuringBegan">Whether the warm-up reached its longest (<see cref="RrRunner.MostWarmupSeconds"/>) with the JIT still compiling.</param>
/// <param name="ProcessCpuMicrosecondsPerRequest">CPU time of the whole process (user and system, every thread: the clients and the in-process responder) in the measured window, over the responses counted in it; against a --server, the client's share only.</param>
/// <param name="MethodsCompiledWhileMeasuring">Methods this process's JIT compiled in the measured window (any thread; a remote --server's are not seen).</param>
/// <param name="JitMillisecondsWhileMeasuring">The time this process's JIT spent compiling in the measured window (any thread).</param>
internal sealed record RrResult(
    string Mode,
    int Parallel,
    int Connections,
    int RequestBytes,
    int ResponseBytes,
    double RequestsPerSecond,
    long Completed,
    long Sent,
    long Lost,
    long Late,
    long Malformed,
    long Refused,
    LatencySummary Latency,
    double ProcessCpuPercent = 0,
    long BusyPollDatagrams = 0,
    DatagramBackend? ResponderBackend = null,
    string? PinFailure = null,
    DatagramBackend? ClientBackend = null,
    double RequestsPerSendCall = 0,
    double ResponsesPerReceiveCall = 0,
    LatencySummary? HalfRoundTripLatency = null,
    double WarmupSeconds = 0,
    bool JitBusyWhenMeasuringBegan = false,
    long MethodsCompiledWhileMeasuring = 0,
    double JitMillisecondsWhileMeasuring = 0,
    double ProcessCpuMicrosecondsPerRequest = 0);

/// <summary>The JSON document of <c>salvo rr --json</c>.</summary>
/// <param name="Command">"rr".</param>
/// <param name="Environment">Where it ran.</param>
/// <param name="Settings">How it ran.</param>
/// <param name="Result">What it measured.</param>
internal sealed record RrReport(string Command, EnvironmentInfo Environment, RrSettings Settings, RrResult Result);

/// <summary>A --json-stream progress event.</summary>
/// <param name="Event">"interval" about every 250 ms, or "measuring" once, when the measured window opens.</param>
/// <param name="Seconds">Seconds since the start.</param>
/// <param name="Completed">Responses so far.</param>
internal sealed record RrIntervalEvent(string Event, double Seconds, long Completed)
{
    /// <summary>Progress, about every 250 ms.</summary>
    public const string Interval = "interval";

    /// <summary>The measured window has opened (the warm-up is over): a script measuring beside rr starts here.</summary>
    public const string Measuring = "measuring";
}
