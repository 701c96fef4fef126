using System.CommandLine;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Echo;
using Salvo.Perf.TestServer.Iperf3;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Salvo.Perf.TestServer.Sockperf;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary><c>salvo server</c>: iperf3-style test server (TCP control and UDP data on one port number); also answers rr requests.</summary>
internal static class ServerCommand
{
    public static Command Create(CliConsole console)
    {
        var port = CommonOptions.Port(0);
        var bind = CommonOptions.Bind("Address to listen on.");
        var workers = CommonOptions.Int("--workers", "-w", "COUNT", 1, 1, CommonOptions.MaxWorkers, "UDP receive workers: sockets sharing the port with SO_REUSEPORT, one thread each.");
        var interval = CommonOptions.Seconds("--interval", "-i", 1, "Seconds between interval reports; 0 = none.", allowZero: true);
        var backend = BackendOption.Create("the server's sockets (receivers, or senders for -R tests)", afXdp: true);
        var busyPoll = BackendOption.AfXdpBusyPoll("the server's receive sockets");
        var oneOff = new Option<bool>("--one-off", "-1") { Description = "Serve one test, then exit. Only a client that completes the control handshake counts: a connection that sends nothing " +
                "(a port scan, nc -z) or garbage is closed with the reason logged, within 10 s, and the server keeps waiting. Defaults to serving until Ctrl+C or SIGTERM." };
        var defaults = new ServerLimits();
        var sockperfIdle = CommonOptions.Seconds("--sockperf-idle-timeout", null, defaults.SockperfIdleTimeout.TotalSeconds,
            "A sockperf TCP connection that makes no progress this long (nothing received, or its answers left unread) is closed, counted and logged; 0 = never.", allowZero: true);
        var sockperfMax = CommonOptions.Int("--sockperf-max-connections", null, "COUNT", defaults.SockperfMaxConnections, 1, 65_536,
            "sockperf TCP connections served at once; one more is closed at once, counted and logged.");
        var echo = new EchoOptionSet();
        var command = new Command("server",
            "Waits for 'salvo client' tests (TCP control on --port, UDP data on the same port number), one test at a time. " +
            "On the same port it also answers stock iperf3 UDP clients (iperf3 -u -c HOST -p PORT), stock sockperf clients " +
            "(ping-pong, under-load, throughput; UDP and TCP) and 'salvo rr --server' requests. With --echo it is an RFC 862 " +
            "echo service instead.")
        {
            port, bind, workers, interval, oneOff, backend, busyPoll, sockperfIdle, sockperfMax,
        };
        echo.AddTo(command);
        command.SetAction((parse, cancellationToken) =>
        {
            var address = CommonOptions.ParseAddress(parse.GetValue(bind)!, "-B/--bind");
            var chosen = BackendOption.Read(parse, backend);
            BackendOption.RefuseAfXdpMisfit(chosen, parse.GetValue(workers), address);
            if (echo.Read(parse, oneOff) is { } echoSettings)
            {
                RefuseWithEcho(parse, sockperfIdle);
                RefuseWithEcho(parse, sockperfMax);
                return EchoCommand.RunAsync(console, address, parse.GetValue(port), parse.GetValue(workers), parse.GetValue(interval), echoSettings with { Backend = chosen }, cancellationToken);
            }

            var limits = defaults with
            {
                SockperfIdleTimeout = TimeSpan.FromSeconds(parse.GetValue(sockperfIdle)),
                SockperfMaxConnections = parse.GetValue(sockperfMax),
            };
            return RunAsync(console, address, parse.GetValue(port), parse.GetValue(workers), parse.GetValue(interval), parse.GetValue(oneOff), chosen, cancellationToken, limits, parse.GetValue(busyPoll));
        });
        return command;
    }

    /// <summary>
    /// Runs the test server until <paramref name="cancellationToken"/> (a stop signal) or, with <paramref name="oneOff"/>, the
    /// end of its one test. A stop cuts the test in progress short: its counts so far are reported and the client is told
    /// in its own protocol. The totals line is printed however the server ends.
    /// </summary>
    public static async Task<int> RunAsync(
        CliConsole console, IPAddress address, int port, int workers, double interval, bool oneOff, DatagramBackend backend, CancellationToken cancellationToken,
        ServerLimits? limits = null, bool afXdpBusyPoll = false)
    {
        limits ??= new ServerLimits();
        var tally = new ServerTally();
        var sockperf = new SockperfService(workers, limits.SockperfMaxConnections, limits.SockperfIdleTimeout) { Console = console };
        var (engine, listener) = Open(address, port, workers, backend, sockperf, afXdpBusyPoll);
        using var engineScope = engine;
        using var listenerScope = listener;
        using var sockperfReporter = new SockperfReporter(console, sockperf, interval);
        using var admission = new ControlAdmission(console, tally, limits);
        using var diverter = new SockperfTcpDiverter(listener, sockperf, limits, tally, admission.AdmitAsync, console, cancellationToken);
        console.Line($"salvo server listening on {engine.LocalEndPoint} (TCP control, UDP data, {workers} receive worker(s), {engine.Backend} backend)");
        if (console.Format != OutputFormat.Text)
        {
            console.Note($"salvo server: listening on {engine.LocalEndPoint}");
        }

        try
        {
            // With -1 only a client that completes the handshake uses up the one test: a port scan or a bare
            // connect (nc -z) is rejected like any other bad client and the server keeps waiting.
            var served = false;
            do
            {
                using var test = await admission.NextAsync(cancellationToken).ConfigureAwait(false);
                served = true;
                tally.TestStarted(test.Kind);
                try
                {
                    await RunTestAsync(console, test, engine, address, interval, backend, cancellationToken).ConfigureAwait(false);
                }
                catch (Exception e) when (cancellationToken.IsCancellationRequested && (e is OperationCanceledException || ControlAdmission.IsClientFailure(e)))
                {
                    // A stop signal (or Ctrl+C) during a test: the test's side was reported; the client hears why it ends.
                    tally.TestCutShort();
                    await test.SayStoppingAsync().ConfigureAwait(false);
                    if (e is OperationCanceledException)
                    {
                        throw;
                    }

                    throw new OperationCanceledException("The server is stopping.", e, cancellationToken);
                }
                catch (Exception e) when (ControlAdmission.IsClientFailure(e))
                {
                    console.Note(TestEndedNote(test.Kind, test.Remote, e));
                    engine.EndTest();
                }
                finally
                {
                    admission.Release();
                }
            }
            while (!(oneOff && served) && !cancellationToken.IsCancellationRequested);
        }
        finally
        {
            // On stdout with the text reports; on stderr beside JSON, which keeps stdout to the documents.
            List<string> lines = [tally.TotalLine()];
            if (engine.Backend == DatagramBackend.AfXdp)
            {
                lines.Add($"server frames dropped by the AF_XDP receive checks: {FrameDropReport.Describe(engine.FrameDrops)}");
            }

            foreach (var line in lines)
            {
                if (console.Format == OutputFormat.Text)
                {
                    console.Line(line);
                }
                else
                {
                    console.Note($"salvo {line}");
                }
            }
        }

        cancellationToken.ThrowIfCancellationRequested();
        return 0;
    }

    private static Task RunTestAsync(CliConsole console, AdmittedTest test, IReceiveEngine engine, IPAddress address, double interval, DatagramBackend backend, CancellationToken cancellationToken) => test switch
    {
        Iperf3AdmittedTest iperf3 => Iperf3ServerSession.RunTestAsync(console, iperf3.Control, iperf3.Parameters, engine, interval, cancellationToken),
        SalvoAdmittedTest salvo => ServeAsync(console, salvo.Channel, salvo.Hello, engine, address, interval, backend, cancellationToken),
        _ => throw new InvalidOperationException($"no test runner for {test.GetType().Name}"),
    };

    /// <summary>Server-only options given with --echo are refused naming them, as --echo-rate is without --echo.</summary>
    private static void RefuseWithEcho(ParseResult parse, Option option)
    {
        if (parse.GetResult(option) is { Implicit: false })
        {
            throw new CliException($"{option.Name}: does not apply to --echo (it sets a limit of the test server).");
        }
    }

    private static async Task ServeAsync(
        CliConsole console, ControlChannel channel, ControlMessage hello, IReceiveEngine engine, IPAddress address, double interval, DatagramBackend backend, CancellationToken cancellationToken)
    {
        var duration = hello.DurationSeconds!.Value;
        var reverse = hello.Reverse == true;
        console.Line($"Accepted {channel.Remote}: {hello.Parallel} flow(s) of {hello.LengthBytes} B for {duration} s at {(hello.BitsPerSecond == 0 ? "unlimited" : ValueParsers.FormatBits(hello.BitsPerSecond!.Value))}{(reverse ? ", reverse (server sends)" : string.Empty)}");
        var cpuStart = CpuClock.Process();
        var clock = Stopwatch.StartNew();
        SideReport local;
        SideReport? peer;
        if (!reverse)
        {
            engine.BeginTest();
            await channel.SendAsync(new ControlMessage("ready", UdpPort: engine.LocalEndPoint.Port), cancellationToken).ConfigureAwait(false);
            var done = channel.ReceiveAsync(TimeSpan.FromSeconds(duration + 30), cancellationToken);
            ControlMessage message;
            try
            {
                await TrafficReports.IntervalsAsync(console, "receiver", interval, () =>
                {
                    var t = engine.Snapshot();
                    return (t.Datagrams, t.Bytes, t.Lost, t.JitterMicroseconds);
                }, done).ConfigureAwait(false);
                message = await done.ConfigureAwait(false);
            }
            catch (Exception) when (cancellationToken.IsCancellationRequested)
            {
                TrafficReports.ServerCutShort(console, channel.Remote.ToString(), reverse, TrafficReports.Receiver(engine.Snapshot(), Math.Max(clock.Elapsed.TotalSeconds, 1e-3), CpuClock.Process() - cpuStart, engine.Backend));
                engine.EndTest();
                throw;
            }

            if (message.Type != "done" || message.Sent is null || message.Sent.Length > ControlMessage.MaxParallel)
            {
                throw new InvalidDataException($"expected a done message with sent counts, got '{message.Type}'");
            }

            await TrafficReports.DrainAsync(engine, message.Sent, cancellationToken).ConfigureAwait(false);
            local = TrafficReports.Receiver(engine.Snapshot(message.Sent), Math.Min(clock.Elapsed.TotalSeconds, duration), CpuClock.Process() - cpuStart, engine.Backend);
            engine.EndTest();
            if (message.CutShort == true)
            {
                local = local with { CutShort = true };
                console.Line($"Test with {channel.Remote} {TrafficReports.CutShortAfter(local.Seconds)}: the client stopped it; the counts up to then:");
            }

            await channel.SendAsync(new ControlMessage("result", Side: local), cancellationToken).ConfigureAwait(false);
            peer = null;
        }
        else
        {
            var targets = hello.ClientPorts!.Select(p => new IPEndPoint(channel.Remote.Address, p)).ToArray();
            using var sender = new TrafficSender(address, targets, hello.LengthBytes!.Value, hello.BitsPerSecond!.Value, duration, backend);
            await channel.SendAsync(new ControlMessage("ready", UdpPort: engine.LocalEndPoint.Port), cancellationToken).ConfigureAwait(false);
            sender.Start();
            var finished = Task.Run(() => sender.Join(TimeSpan.FromSeconds(duration + 10)), CancellationToken.None);
            // The client's next message is read while sending: a stop (its Ctrl+C) ends the sending then, and the
            // same read, once sending ends, is the result; one read at a time on the channel.
            var next = channel.ReceiveAsync(TimeSpan.FromSeconds(duration + 30), cancellationToken);
            var cutShort = false;
            try
            {
                await TrafficReports.IntervalsAsync(console, "sender", interval, () => (sender.Datagrams, sender.Bytes, 0, 0),
                    Task.WhenAny(finished, next).WaitAsync(cancellationToken)).ConfigureAwait(false);
                if (next.IsCompletedSuccessfully && next.Result.Type == "stop")
                {
                    cutShort = !finished.IsCompleted;
                    sender.Dispose();
                    next = channel.ReceiveAsync(TimeSpan.FromSeconds(10), cancellationToken);
                }
                else if (next.IsCompleted)
                {
                    // The connection ended or the client sent something else while the server sent: a failed test.
                    sender.Dispose();
                    var unexpected = await next.ConfigureAwait(false);
                    throw new InvalidDataException($"expected stop or result while sending, got '{unexpected.Type}'");
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                sender.Dispose();
                TrafficReports.ServerCutShort(console, channel.Remote.ToString(), reverse, TrafficReports.Sender(sender, Math.Max(clock.Elapsed.TotalSeconds, 1e-3), CpuClock.Process() - cpuStart));
                throw;
            }

            local = TrafficReports.Sender(sender, clock.Elapsed.TotalSeconds, CpuClock.Process() - cpuStart);
            if (cutShort)
            {
                local = local with { CutShort = true };
                console.Line($"Test with {channel.Remote} {TrafficReports.CutShortAfter(local.Seconds)}: the client stopped it; the counts up to then:");
            }

            await channel.SendAsync(new ControlMessage("done", Sent: sender.SentPerFlow, Side: local, CutShort: cutShort ? true : null), cancellationToken).ConfigureAwait(false);
            var result = await next.ConfigureAwait(false);
            peer = result.Side;
        }

        TrafficReports.ServerReport(console, channel.Remote.ToString(), reverse, local, peer);
    }

    /// <summary>
    /// Binds the UDP workers, then the TCP control listener on the same port number. With port 0 the UDP
    /// port is ephemeral and the same number may be taken for TCP (a connection in TIME_WAIT), so a few
    /// fresh ports are tried.
    /// </summary>
    private static (IReceiveEngine Engine, Socket Listener) Open(IPAddress address, int port, int workers, DatagramBackend backend, SockperfService sockperf, bool afXdpBusyPoll)
    {
        for (var attempt = 1; ; attempt++)
        {
            IReceiveEngine engine;
            try
            {
                engine = Bind(() => ReceiveEngines.Create(new IPEndPoint(address, port), workers, answerRequests: true, backend, sockperf, afXdpBusyPoll), address, port);
            }
            catch (NotSupportedException e) when (backend == DatagramBackend.AfXdp)
            {
                throw AfXdpStartFailure.Describe(new IPEndPoint(address, port), AfXdpStartFailure.InterfaceOf(address), e);
            }

            var control = new IPEndPoint(address, engine.LocalEndPoint.Port);
            var listener = TcpListeners.Create(control);
            try
            {
                listener.Bind(control);
                // The kernel's most (net.core.somaxconn, 4096 since Linux 5.4): with 4, 10,000 clients connecting at once got
                // through at about 20 a second, the rest of their SYNs dropped and sent again after 1, 3, 7 ... s.
                listener.Listen();
                return (engine, listener);
            }
            catch (SocketException e) when (port == 0 && attempt < 10 && e.SocketErrorCode == SocketError.AddressAlreadyInUse)
            {
                listener.Dispose();
                engine.Dispose();
            }
            catch (SocketException e)
            {
                listener.Dispose();
                engine.Dispose();
                throw Explain(e, address, port) ?? throw new CliException($"-p/--port: cannot listen on {address}:{port}: {e.Message}", CliException.FailureExitCode);
            }
        }
    }

    /// <summary>Opens something bound to the port, turning "in use" into one clear line naming -p.</summary>
    private static T Bind<T>(Func<T> open, IPAddress address, int port)
    {
        try
        {
            return open();
        }
        catch (SocketException e) when (Explain(e, address, port) is { } explained)
        {
            throw explained;
        }

    }

    /// <summary>The one-line error for a bind failure the user can act on, or null.</summary>
    internal static CliException? Explain(SocketException e, IPAddress address, int port) => e.SocketErrorCode switch
    {
        SocketError.AddressAlreadyInUse => new CliException($"-p/--port: port {port} is already in use on {address} (TCP or UDP).", CliException.FailureExitCode),
        SocketError.AddressNotAvailable => new CliException($"-B/--bind: {address} is not an address of this host.", CliException.FailureExitCode),
        _ => null,
    };

    /// <summary>
    /// The log line for a test that ended on the client's side: a client that sent something malformed is rejected; one
    /// that went away (killed, its connection reset or closed, or silent past the limit) only ended its test.
    /// </summary>
    internal static string TestEndedNote(ControlClientKind kind, EndPoint remote, Exception failure) =>
        (kind, failure) switch
        {
            (ControlClientKind.Iperf3, _) => $"salvo server: iperf3 client {remote}: test ended: {failure.Message}",
            (_, InvalidDataException) => $"salvo server: rejected {remote}: {failure.Message}",
            _ => $"salvo server: test with {remote} ended: {failure.Message}",
        };
}
