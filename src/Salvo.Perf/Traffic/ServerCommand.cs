using System.CommandLine;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Cli;
using Salvo.Perf.Echo;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Salvo.Perf.Sockperf;

namespace Salvo.Perf.Traffic;

/// <summary><c>salvo server</c>: iperf3-style test server (TCP control and UDP data on one port number); also answers rr requests.</summary>
internal static class ServerCommand
{
    private static readonly TimeSpan HelloTimeout = TimeSpan.FromSeconds(10);

    public static Command Create(CliConsole console)
    {
        var port = CommonOptions.Port(0);
        var bind = CommonOptions.Bind("Address to listen on.");
        var workers = CommonOptions.Int("--workers", "-w", "COUNT", 1, 1, CommonOptions.MaxWorkers, "UDP receive workers: sockets sharing the port with SO_REUSEPORT, one thread each.");
        var interval = CommonOptions.Seconds("--interval", "-i", 1, "Seconds between interval reports; 0 = none.", allowZero: true);
        var backend = BackendOption.Create("the server's sockets (receivers, or senders for -R tests)");
        var oneOff = new Option<bool>("--one-off", "-1") { Description = "Serve one test, then exit. Only a client that completes the control handshake counts: a connection that sends nothing " +
                "(a port scan, nc -z) or garbage is closed with the reason logged, within 10 s, and the server keeps waiting. Defaults to serving until Ctrl+C." };
        var echo = new EchoOptionSet();
        var command = new Command("server",
            "Waits for 'salvo client' tests (TCP control on --port, UDP data on the same port number), one test at a time. " +
            "On the same port it also answers stock iperf3 UDP clients (iperf3 -u -c HOST -p PORT), stock sockperf clients " +
            "(ping-pong, under-load, throughput; UDP and TCP) and 'salvo rr --server' requests. With --echo it is an RFC 862 " +
            "echo service instead.")
        {
            port, bind, workers, interval, oneOff, backend,
        };
        echo.AddTo(command);
        command.SetAction((parse, cancellationToken) => echo.Read(parse, oneOff) is { } echoSettings
            ? EchoCommand.RunAsync(console, CommonOptions.ParseAddress(parse.GetValue(bind)!, "-B/--bind"), parse.GetValue(port), parse.GetValue(workers), parse.GetValue(interval), echoSettings with { Backend = BackendOption.Read(parse, backend) }, cancellationToken)
            : RunAsync(console, CommonOptions.ParseAddress(parse.GetValue(bind)!, "-B/--bind"),
            parse.GetValue(port), parse.GetValue(workers), parse.GetValue(interval), parse.GetValue(oneOff), BackendOption.Read(parse, backend), cancellationToken));
        return command;
    }

    public static async Task<int> RunAsync(
        CliConsole console, IPAddress address, int port, int workers, double interval, bool oneOff, DatagramBackend backend, CancellationToken cancellationToken)
    {
        var sockperf = new SockperfService(workers) { Console = console };
        var (engine, listener) = Open(address, port, workers, backend, sockperf);
        using var engineScope = engine;
        using var listenerScope = listener;
        using var sockperfReporter = new SockperfReporter(console, sockperf, interval);
        using var diverter = new SockperfTcpDiverter(listener, sockperf, cancellationToken);
        console.Line($"salvo server listening on {engine.LocalEndPoint} (TCP control, UDP data, {workers} receive worker(s), {engine.Backend} backend)");
        if (console.Format != OutputFormat.Text)
        {
            console.Note($"salvo server: listening on {engine.LocalEndPoint}");
        }
        // With -1 only a client that completes the handshake uses up the one test: a port scan or a bare
        // connect (nc -z) is rejected like any other bad client and the server keeps waiting.
        var served = false;
        do
        {
            // Ctrl+C while waiting or during a test ends the command as cancelled (exit 130, as in loopback);
            // the sockets close on the way out, so a client mid-test sees the connection end.
            var (client, kind) = await diverter.AcceptAsync(cancellationToken).ConfigureAwait(false);
            if (kind == ControlClientKind.Silent)
            {
                console.Note($"salvo server: rejected {client.RemoteEndPoint}: sent nothing within {SockperfTcpDiverter.SortTimeout.TotalSeconds:0} s; waiting for the next client");
                client.Dispose();
                continue;
            }

            if (kind == ControlClientKind.Iperf3)
            {
                served = await Iperf3.Iperf3ServerSession.ServeAsync(console, client, engine, interval, cancellationToken).ConfigureAwait(false) || served;
                continue;
            }

            using var channel = new ControlChannel(client);
            try
            {
                var hello = await ReceiveHelloAsync(channel, cancellationToken).ConfigureAwait(false);
                served = true;
                await ServeAsync(console, channel, hello, engine, address, interval, backend, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is InvalidDataException or TimeoutException or EndOfStreamException or IOException or SocketException)
            {
                // A socket error that Ctrl+C caused is the cancellation, not the client's fault.
                cancellationToken.ThrowIfCancellationRequested();
                console.Note($"salvo server: rejected {channel.Remote}: {e.Message}{(served ? string.Empty : "; waiting for the next client")}");
                engine.EndTest();
            }
        }
        while (!(oneOff && served) && !cancellationToken.IsCancellationRequested);

        cancellationToken.ThrowIfCancellationRequested();
        return 0;
    }

    /// <summary>The client's hello, within <see cref="HelloTimeout"/>; a bad one is answered with an error and thrown.</summary>
    private static async Task<ControlMessage> ReceiveHelloAsync(ControlChannel channel, CancellationToken cancellationToken)
    {
        var hello = await channel.ReceiveAsync(HelloTimeout, cancellationToken).ConfigureAwait(false);
        if (hello.ValidateHello() is { } reason)
        {
            await channel.SendAsync(new ControlMessage("error", Reason: reason), cancellationToken).ConfigureAwait(false);
            throw new InvalidDataException(reason);
        }

        return hello;
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
            await TrafficReports.IntervalsAsync(console, "receiver", interval, () =>
            {
                var t = engine.Snapshot();
                return (t.Datagrams, t.Bytes, t.Lost, t.JitterMicroseconds);
            }, done).ConfigureAwait(false);
            var message = await done.ConfigureAwait(false);
            if (message.Type != "done" || message.Sent is null || message.Sent.Length > ControlMessage.MaxParallel)
            {
                throw new InvalidDataException($"expected a done message with sent counts, got '{message.Type}'");
            }

            await TrafficReports.DrainAsync(engine, message.Sent, cancellationToken).ConfigureAwait(false);
            local = TrafficReports.Receiver(engine.Snapshot(message.Sent), Math.Min(clock.Elapsed.TotalSeconds, duration), CpuClock.Process() - cpuStart, engine.Backend);
            engine.EndTest();
            await channel.SendAsync(new ControlMessage("result", Side: local), cancellationToken).ConfigureAwait(false);
            peer = null;
        }
        else
        {
            var targets = hello.ClientPorts!.Select(p => new IPEndPoint(channel.Remote.Address, p)).ToArray();
            using var sender = new TrafficSender(address, targets, hello.LengthBytes!.Value, hello.BitsPerSecond!.Value, duration, backend);
            await channel.SendAsync(new ControlMessage("ready", UdpPort: engine.LocalEndPoint.Port), cancellationToken).ConfigureAwait(false);
            sender.Start();
            var finished = Task.Run(() => sender.Join(TimeSpan.FromSeconds(duration + 10)), cancellationToken);
            await TrafficReports.IntervalsAsync(console, "sender", interval, () => (sender.Datagrams, sender.Bytes, 0, 0), finished).ConfigureAwait(false);
            local = TrafficReports.Sender(sender, clock.Elapsed.TotalSeconds, CpuClock.Process() - cpuStart);
            await channel.SendAsync(new ControlMessage("done", Sent: sender.SentPerFlow, Side: local), cancellationToken).ConfigureAwait(false);
            var result = await channel.ReceiveAsync(TimeSpan.FromSeconds(10), cancellationToken).ConfigureAwait(false);
            peer = result.Side;
        }

        var report = new ServerTestReport("server", EnvironmentInfo.Capture(), channel.Remote.ToString(), reverse, local, peer);
        console.Document(report, PerfJson.Indented.ServerTestReport, PerfJson.Compact.ServerTestReport);
        TrafficReports.PrintSummary(console, local, peer);
    }

    /// <summary>
    /// Binds the UDP workers, then the TCP control listener on the same port number. With port 0 the UDP
    /// port is ephemeral and the same number may be taken for TCP (a connection in TIME_WAIT), so a few
    /// fresh ports are tried.
    /// </summary>
    private static (IReceiveEngine Engine, Socket Listener) Open(IPAddress address, int port, int workers, DatagramBackend backend, SockperfService sockperf)
    {
        for (var attempt = 1; ; attempt++)
        {
            var engine = Bind(() => ReceiveEngines.Create(new IPEndPoint(address, port), workers, answerRequests: true, backend, sockperf), address, port);
            var control = new IPEndPoint(address, engine.LocalEndPoint.Port);
            var listener = TcpListeners.Create(control);
            try
            {
                listener.Bind(control);
                listener.Listen(4);
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
}
