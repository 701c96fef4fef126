using System.CommandLine;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary><c>salvo client HOST</c>: runs one iperf3-style UDP test against <c>salvo server</c>.</summary>
internal static class ClientCommand
{
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(5);

    // Long enough for a server to drain its socket buffers (TrafficReports.DrainAsync waits at most 3 s) and answer.
    private static readonly TimeSpan WrapUpTimeout = TimeSpan.FromSeconds(5);

    public static Command Create(CliConsole console)
    {
        var host = new Argument<string>("HOST") { Description = "The server's address or name." };
        var port = CommonOptions.Port(1);
        var length = CommonOptions.Int("--length", "-l", "BYTES", 1380, Protocol.PayloadHeader.Size, ValueParsers.MaxUdpPayload, "Datagram payload in bytes.");
        var bitrate = CommonOptions.Bitrate("100M");
        var time = CommonOptions.Seconds("--time", "-t", 10, "Seconds of sending.");
        var parallel = CommonOptions.Int("--parallel", "-P", "FLOWS", 1, 1, ControlMessage.MaxParallel, "Parallel flows, one socket and thread each.");
        var backend = BackendOption.Create("the client's sockets (senders, or receivers with -R)");
        var reverse = new Option<bool>("--reverse", "-R") { Description = "The server sends and the client receives. Defaults to off." };
        var interval = CommonOptions.Seconds("--interval", "-i", 1, "Seconds between interval reports; 0 = none.", allowZero: true);
        var workers = CommonOptions.Int("--workers", "-w", "COUNT", 1, 1, CommonOptions.MaxWorkers, "Receive workers on the client in reverse mode.");
        var iperf3 = Iperf3.Iperf3ClientOption.Create();
        var bind = new Option<string?>("--bind", "-B") { Description = "Local address to send from and receive on. Defaults to any address of the server's family.", HelpName = "ADDRESS" };
        var command = new Command("client", "Runs a UDP test against 'salvo server' at HOST: the client sends (or with -R receives) for -t seconds, then both sides' counts are compared.")
        {
            host, port, length, bitrate, time, parallel, reverse, interval, workers, bind, backend, iperf3,
        };
        command.SetAction((parse, cancellationToken) =>
        {
            var settings = new ClientSettings($"{parse.GetValue(host)}:{parse.GetValue(port)}", parse.GetValue(length), parse.GetValue(bitrate),
                parse.GetValue(time), parse.GetValue(parallel), parse.GetValue(reverse), BackendOption.Read(parse, backend));
            var local = parse.GetValue(bind) is { } b ? CommonOptions.ParseAddress(b, "-B/--bind") : null;
            if (parse.GetValue(iperf3))
            {
                return Iperf3.Iperf3Client.RunAsync(console, parse.GetValue(host)!, Iperf3.Iperf3ClientOption.Port(parse, port), settings, local, parse.GetValue(interval), cancellationToken);
            }

            return RunAsync(console, parse.GetValue(host)!, parse.GetValue(port), settings, local, parse.GetValue(interval), parse.GetValue(workers), cancellationToken);
        });
        return command;
    }

    public static async Task<int> RunAsync(CliConsole console, string host, int port, ClientSettings settings, IPAddress? bind, double interval, int workers, CancellationToken cancellationToken)
    {
        using var channel = await ConnectAsync(host, port, cancellationToken).ConfigureAwait(false);
        var server = channel.Remote.Address.IsIPv4MappedToIPv6 ? channel.Remote.Address.MapToIPv4() : channel.Remote.Address;
        bind ??= server.AddressFamily == AddressFamily.InterNetworkV6 ? IPAddress.IPv6Any : IPAddress.Any;
        using var engine = settings.Reverse ? ReceiveEngines.Create(new IPEndPoint(bind, 0), workers, answerRequests: false, settings.Backend) : null;

        // Count from before the hello: the server starts sending as soon as it answers ready.
        engine?.BeginTest();
        await channel.SendAsync(new ControlMessage("hello", ControlMessage.CurrentVersion, settings.LengthBytes, settings.BitsPerSecond, settings.DurationSeconds,
            settings.Parallel, settings.Reverse, engine is null ? null : Enumerable.Repeat(engine.LocalEndPoint.Port, settings.Parallel).ToArray()), cancellationToken).ConfigureAwait(false);
        var ready = await Receive(channel, TimeSpan.FromSeconds(10), cancellationToken).ConfigureAwait(false);
        if (ready.Type == "error")
        {
            throw new CliException($"the server refused the test: {ready.Reason}", CliException.FailureExitCode);
        }

        if (ready.Type != "ready" || ready.UdpPort is not (>= 1 and <= 65_535))
        {
            throw new CliException($"the server answered '{ready.Type}' instead of ready with a UDP port.", CliException.FailureExitCode);
        }

        console.Line($"Connected to {server}:{port}: {settings.Parallel} flow(s) of {settings.LengthBytes} B for {settings.DurationSeconds} s at {(settings.BitsPerSecond == 0 ? "unlimited" : ValueParsers.FormatBits(settings.BitsPerSecond))}{(settings.Reverse ? ", reverse" : string.Empty)}");
        var cpuStart = CpuClock.Process();
        var clock = Stopwatch.StartNew();
        // The control reads run past a stop signal: after Ctrl+C the client still tells the server and waits, at most
        // WrapUpTimeout, for the counts of the test so far, so both ends print what ran instead of nothing.
        using var wrapUp = new CancellationTokenSource();
        var stopSignal = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var stopRegistration = cancellationToken.UnsafeRegister(static state =>
        {
            var (signal, deadline) = ((TaskCompletionSource, CancellationTokenSource))state!;
            deadline.CancelAfter(WrapUpTimeout);
            signal.TrySetResult();
        }, (stopSignal, wrapUp));
        var stopped = stopSignal.Task;
        SideReport? sent;
        SideReport? received;
        bool cutShort;
        if (engine is null)
        {
            var target = new IPEndPoint(server, ready.UdpPort.Value);
            using var sender = new TrafficSender(bind, Enumerable.Repeat(target, settings.Parallel).ToArray(), settings.LengthBytes, settings.BitsPerSecond, settings.DurationSeconds, settings.Backend);
            // The control connection is read while sending: a server that stops mid-test says why at once (an
            // error), and the test ends then instead of sending into nothing for the rest of -t.
            var reply = Receive(channel, TimeSpan.FromSeconds(settings.DurationSeconds + 40), wrapUp.Token);
            sender.Start();
            var finished = Task.Run(() => sender.Join(TimeSpan.FromSeconds(settings.DurationSeconds + 10)), CancellationToken.None);
            await TrafficReports.IntervalsAsync(console, "sender", interval, () => (sender.Datagrams, sender.Bytes, 0, 0), Task.WhenAny(finished, reply, stopped)).ConfigureAwait(false);
            cutShort = !finished.IsCompleted && !reply.IsCompleted;
            if (!finished.IsCompleted)
            {
                sender.Dispose();
            }

            if (!cutShort && !finished.IsCompleted)
            {
                var early = await reply.ConfigureAwait(false);
                throw Stopped(early, "waiting for the test to end");
            }

            sent = TrafficReports.Sender(sender, clock.Elapsed.TotalSeconds, CpuClock.Process() - cpuStart);
            if (cutShort)
            {
                sent = sent with { CutShort = true };
            }

            await channel.SendAsync(new ControlMessage("done", Sent: sender.SentPerFlow, CutShort: cutShort ? true : null), WrapUp(wrapUp, cancellationToken)).ConfigureAwait(false);
            var result = await reply.ConfigureAwait(false);
            received = result.Side ?? throw Stopped(result, "its counts");
        }
        else
        {
            var done = Receive(channel, TimeSpan.FromSeconds(settings.DurationSeconds + 30), wrapUp.Token);
            await TrafficReports.IntervalsAsync(console, "receiver", interval, () =>
            {
                var t = engine.Snapshot();
                return (t.Datagrams, t.Bytes, t.Lost, t.JitterMicroseconds);
            }, Task.WhenAny(done, stopped)).ConfigureAwait(false);
            cutShort = !done.IsCompleted;
            if (cutShort)
            {
                await channel.SendAsync(new ControlMessage("stop"), WrapUp(wrapUp, cancellationToken)).ConfigureAwait(false);
            }

            var message = await done.ConfigureAwait(false);
            if (message.Type != "done" || message.Sent is null)
            {
                throw Stopped(message, "done");
            }

            await TrafficReports.DrainAsync(engine, message.Sent, WrapUp(wrapUp, cancellationToken)).ConfigureAwait(false);
            received = TrafficReports.Receiver(engine.Snapshot(message.Sent), Math.Min(clock.Elapsed.TotalSeconds, settings.DurationSeconds), CpuClock.Process() - cpuStart, engine.Backend);
            cutShort |= message.CutShort == true;
            if (cutShort)
            {
                received = received with { CutShort = true };
            }

            sent = message.Side;
            await channel.SendAsync(new ControlMessage("result", Side: received), WrapUp(wrapUp, cancellationToken)).ConfigureAwait(false);
        }

        if (cutShort)
        {
            console.Line($"Test {TrafficReports.CutShortAfter(clock.Elapsed.TotalSeconds)}: stopped by a signal; the counts up to then:");
        }

        var report = new ClientReport("client", EnvironmentInfo.Capture(), settings, sent, received, cutShort ? true : null);
        console.Document(report, PerfJson.Indented.ClientReport, PerfJson.Compact.ClientReport);
        TrafficReports.PrintSummary(console, sent, received);
        cancellationToken.ThrowIfCancellationRequested();
        return 0;
    }

    /// <summary>
    /// The token for a step of the exchange that ends a test: the stop token while no stop came; once one has, the
    /// wrap-up token, which a stop cancels <see cref="WrapUpTimeout"/> later, so the counts so far are still exchanged
    /// but a silent server cannot hold the client.
    /// </summary>
    private static CancellationToken WrapUp(CancellationTokenSource wrapUp, CancellationToken cancellationToken) =>
        cancellationToken.IsCancellationRequested ? wrapUp.Token : cancellationToken;

    private static async Task<ControlChannel> ConnectAsync(string host, int port, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(ConnectTimeout);
        try
        {
            await socket.ConnectAsync(host, port, timeout.Token).ConfigureAwait(false);
            return new ControlChannel(socket);
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException && !cancellationToken.IsCancellationRequested)
        {
            socket.Dispose();
            var why = e is SocketException s ? s.SocketErrorCode switch
            {
                SocketError.ConnectionRefused => "connection refused (is 'salvo server' running there?)",
                SocketError.HostNotFound or SocketError.NoData => "unknown host",
                _ => s.Message,
            } : $"no answer within {ConnectTimeout.TotalSeconds:F0} s";
            throw new CliException($"cannot reach salvo server at {host}:{port}: {why}", CliException.FailureExitCode);
        }
    }

    /// <summary>The error for a message that is not the one the test waits for: the server's reason when it sent one.</summary>
    private static CliException Stopped(ControlMessage message, string expected) => message.Type == "error"
        ? new CliException($"the server stopped the test: {message.Reason}", CliException.FailureExitCode)
        : new CliException($"the server answered '{message.Type}' instead of {expected}.", CliException.FailureExitCode);

    private static async Task<ControlMessage> Receive(ControlChannel channel, TimeSpan timeout, CancellationToken cancellationToken)
    {
        try
        {
            return await channel.ReceiveAsync(timeout, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is InvalidDataException or TimeoutException or EndOfStreamException or IOException)
        {
            throw new CliException($"control connection to the server failed: {e.Message}", CliException.FailureExitCode);
        }
    }
}
