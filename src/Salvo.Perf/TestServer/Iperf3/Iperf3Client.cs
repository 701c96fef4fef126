using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// <c>salvo client --iperf3 HOST</c>: one UDP test against a stock <c>iperf3 -s</c>. Speaks iperf3's control
/// protocol, sends with Salvo's batched path (<see cref="TrafficSender"/>: SendBatch, GSO where the kernel
/// has it) or receives with <see cref="Iperf3StreamReceiver"/>, and reports both sides in Salvo's format,
/// the server's side from iperf3's results exchange.
/// </summary>
internal static class Iperf3Client
{
    /// <summary>iperf3's own default port.</summary>
    public const int DefaultPort = 5201;

    private static readonly TimeSpan StepTimeout = TimeSpan.FromSeconds(10);

    public static async Task<int> RunAsync(CliConsole console, string host, int port, ClientSettings settings, IPAddress? bind, double interval, CancellationToken cancellationToken)
    {
        using var control = new Iperf3Control(await ConnectAsync(host, port, cancellationToken).ConfigureAwait(false));
        var server = control.Remote.Address.IsIPv4MappedToIPv6 ? control.Remote.Address.MapToIPv4() : control.Remote.Address;
        bind ??= server.AddressFamily == AddressFamily.InterNetworkV6 ? IPAddress.IPv6Any : IPAddress.Any;
        var parameters = new Iperf3Parameters(settings.DurationSeconds, settings.Parallel, settings.Reverse, settings.LengthBytes,
            settings.BitsPerSecond / settings.Parallel, Counters64: true);
        try
        {
            await control.WriteAsync(Iperf3Cookie.Create(), cancellationToken).ConfigureAwait(false);
            await ExpectAsync(control, Iperf3State.ParamExchange, cancellationToken).ConfigureAwait(false);
            await control.WriteJsonAsync(parameters.ToJson(), cancellationToken).ConfigureAwait(false);
            await ExpectAsync(control, Iperf3State.CreateStreams, cancellationToken).ConfigureAwait(false);
            var serverPort = new IPEndPoint(server, port);
            var sockets = await ConnectStreamsAsync(bind, serverPort, settings.Parallel, settings.Backend, cancellationToken).ConfigureAwait(false);
            console.Line($"Connected to iperf3 server {server}:{port}: {settings.Parallel} stream(s) of {settings.LengthBytes} B for {settings.DurationSeconds} s at " +
                $"{(settings.BitsPerSecond == 0 ? "unlimited" : ValueParsers.FormatBits(settings.BitsPerSecond))}{(settings.Reverse ? ", reverse" : string.Empty)}");
            var (sent, received) = settings.Reverse
                ? await ReceiveAsync(console, control, sockets, parameters, interval, cancellationToken).ConfigureAwait(false)
                : await SendAsync(console, control, sockets, serverPort, parameters, interval, cancellationToken).ConfigureAwait(false);
            var report = new ClientReport("client", EnvironmentInfo.Capture(), settings, sent, received);
            console.Document(report, PerfJson.Indented.ClientReport, PerfJson.Compact.ClientReport);
            TrafficReports.PrintSummary(console, sent, received);
            return 0;
        }
        catch (Exception e) when (e is InvalidDataException or TimeoutException or EndOfStreamException or IOException)
        {
            throw new CliException($"iperf3 control connection to {host}:{port} failed: {e.Message}", CliException.FailureExitCode);
        }
    }

    private static async Task<(SideReport Sent, SideReport Received)> SendAsync(CliConsole console, Iperf3Control control, DatagramSocket[] sockets, IPEndPoint server,
        Iperf3Parameters parameters, double interval, CancellationToken cancellationToken)
    {
        await StartAsync(control, cancellationToken).ConfigureAwait(false);
        var sender = new TrafficSender(sockets, Enumerable.Repeat(server, sockets.Length).ToArray(), parameters.Length,
            parameters.BitsPerSecondPerStream * parameters.Parallel, parameters.Seconds, Iperf3Stamp.For(parameters.Counters64));
        var cpuStart = CpuClock.Process();
        var clock = Stopwatch.StartNew();
        try
        {
            sender.Start();
            var finished = Task.Run(() => sender.Join(TimeSpan.FromSeconds(parameters.Seconds + 10)), cancellationToken);
            await TrafficReports.IntervalsAsync(console, "sender", interval, () => (sender.Datagrams, sender.Bytes, 0, 0), finished).ConfigureAwait(false);
        }
        finally
        {
            sender.Dispose();
        }

        var seconds = Math.Min(clock.Elapsed.TotalSeconds, parameters.Seconds);
        var cpu = CpuClock.Process() - cpuStart;
        await control.WriteStateAsync(Iperf3State.TestEnd, cancellationToken).ConfigureAwait(false);
        var peer = await ExchangeResultsAsync(control, Iperf3Sides.SenderResults(sender, parameters.Length, seconds, cpu), cancellationToken).ConfigureAwait(false);
        return (TrafficReports.Sender(sender, seconds, cpu), Iperf3Sides.PeerReceiver(peer, sender.SentPerFlow, seconds));
    }

    private static async Task<(SideReport Sent, SideReport Received)> ReceiveAsync(CliConsole console, Iperf3Control control, DatagramSocket[] sockets,
        Iperf3Parameters parameters, double interval, CancellationToken cancellationToken)
    {
        var receivers = sockets.Select((s, i) => new Iperf3StreamReceiver(s, Iperf3Datagram.StreamId(i), parameters.Counters64)).ToArray();
        try
        {
            foreach (var receiver in receivers)
            {
                receiver.Start();
            }

            await StartAsync(control, cancellationToken).ConfigureAwait(false);
            var cpuStart = CpuClock.Process();
            var clock = Stopwatch.StartNew();
            await TrafficReports.IntervalsAsync(console, "receiver", interval, () =>
            {
                var counts = receivers.Select(r => r.Counter.Counts).ToArray();
                return (counts.Sum(c => c.Datagrams), counts.Sum(c => c.Bytes), counts.Sum(c => c.Lost), counts.Average(c => c.JitterNanoseconds) / 1000);
            }, Task.Delay(TimeSpan.FromSeconds(parameters.Seconds), cancellationToken)).ConfigureAwait(false);
            await control.WriteStateAsync(Iperf3State.TestEnd, cancellationToken).ConfigureAwait(false);
            Iperf3StreamReceiver.StopAllWhenIdle(receivers, TimeSpan.FromSeconds(2));

            var seconds = Math.Min(clock.Elapsed.TotalSeconds, parameters.Seconds);
            var cpu = CpuClock.Process() - cpuStart;
            var streams = receivers.Select(r => r.Counter).ToArray();
            var peer = await ExchangeResultsAsync(control, Iperf3Sides.ReceiverResults(streams, null, seconds, cpu), cancellationToken).ConfigureAwait(false);
            var sentPerStream = Iperf3Sides.MatchStreams(peer, receivers.Length);
            return (Iperf3Sides.PeerSender(peer, seconds), Iperf3Sides.Receiver(streams, sentPerStream, seconds, cpu, receivers[0].Backend));
        }
        finally
        {
            foreach (var receiver in receivers)
            {
                receiver.Dispose();
            }
        }
    }

    /// <summary>The server says TEST_START, then TEST_RUNNING once every stream is connected.</summary>
    private static async Task StartAsync(Iperf3Control control, CancellationToken cancellationToken)
    {
        await ExpectAsync(control, Iperf3State.TestStart, cancellationToken).ConfigureAwait(false);
        await ExpectAsync(control, Iperf3State.TestRunning, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>iperf3's end: the server asks for results, the client sends its own first, reads the server's, and says done once asked to print.</summary>
    private static async Task<Iperf3Results> ExchangeResultsAsync(Iperf3Control control, Iperf3Results ours, CancellationToken cancellationToken)
    {
        await ExpectAsync(control, Iperf3State.ExchangeResults, cancellationToken).ConfigureAwait(false);
        await control.WriteJsonAsync(ours.ToJson(), cancellationToken).ConfigureAwait(false);
        var peer = Iperf3Results.Parse(await control.ReadJsonAsync(StepTimeout, cancellationToken).ConfigureAwait(false));
        await ExpectAsync(control, Iperf3State.DisplayResults, cancellationToken).ConfigureAwait(false);
        await control.WriteStateAsync(Iperf3State.IperfDone, cancellationToken).ConfigureAwait(false);
        return peer;
    }

    /// <summary>Reads the next state; a refusal becomes one line with iperf3's reason.</summary>
    private static async Task ExpectAsync(Iperf3Control control, Iperf3State expected, CancellationToken cancellationToken)
    {
        var state = await control.ReadStateAsync(TimeSpan.FromSeconds(30), cancellationToken).ConfigureAwait(false);
        if (state == expected)
        {
            return;
        }

        throw state switch
        {
            Iperf3State.AccessDenied => new CliException("the iperf3 server refused the test: it is busy running another test (access denied).", CliException.FailureExitCode),
            Iperf3State.ServerError => new CliException($"the iperf3 server refused the test: {await ServerErrorAsync(control, cancellationToken).ConfigureAwait(false)}", CliException.FailureExitCode),
            Iperf3State.ServerTerminate => new CliException("the iperf3 server ended the test (server terminated).", CliException.FailureExitCode),
            _ => new InvalidDataException($"expected {Iperf3Control.Describe(expected)}, got {Iperf3Control.Describe(state)}"),
        };
    }

    private static async Task<string> ServerErrorAsync(Iperf3Control control, CancellationToken cancellationToken)
    {
        var numbers = await control.ReadAsync(8, StepTimeout, cancellationToken).ConfigureAwait(false);
        return new Iperf3Error(BinaryPrimitives.ReadInt32BigEndian(numbers), BinaryPrimitives.ReadInt32BigEndian(numbers.AsSpan(4))).Describe();
    }

    /// <summary>Connects each stream in turn: a connect datagram to the server's port, then its reply (iperf3's server takes them one at a time).</summary>
    private static async Task<DatagramSocket[]> ConnectStreamsAsync(IPAddress bind, IPEndPoint server, int parallel, DatagramBackend backend, CancellationToken cancellationToken)
    {
        var sockets = new List<DatagramSocket>();
        try
        {
            for (var i = 0; i < parallel; i++)
            {
                var socket = Iperf3StreamSocket.OpenToServer(bind, server, backend);
                sockets.Add(socket);
                await socket.SendAsync(Iperf3Datagram.ConnectMessage.ToArray(), cancellationToken).ConfigureAwait(false);
                var reply = new byte[64];
                using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
                deadline.CancelAfter(StepTimeout);
                ReceiveResult result;
                try
                {
                    result = await socket.ReceiveFromAsync(reply, deadline.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
                {
                    throw new TimeoutException($"stream {i + 1}: no reply to the UDP connect datagram from {server} within {StepTimeout.TotalSeconds:F0} s");
                }

                if (!Iperf3Datagram.IsConnectReply(reply.AsSpan(0, result.Length)))
                {
                    throw new InvalidDataException($"stream {i + 1}: the server answered the UDP connect datagram with {result.Length} other bytes");
                }
            }

            return sockets.ToArray();
        }
        catch
        {
            foreach (var socket in sockets)
            {
                socket.Dispose();
            }

            throw;
        }
    }

    private static async Task<Socket> ConnectAsync(string host, int port, CancellationToken cancellationToken)
    {
        // Iperf3Control turns Nagle off for the control connection, on either end.
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(StepTimeout);
        try
        {
            await socket.ConnectAsync(host, port, timeout.Token).ConfigureAwait(false);
            return socket;
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException && !cancellationToken.IsCancellationRequested)
        {
            socket.Dispose();
            var why = e is SocketException { SocketErrorCode: SocketError.ConnectionRefused } ? "connection refused (is 'iperf3 -s' running there?)" : e.Message;
            throw new CliException($"cannot reach the iperf3 server at {host}:{port}: {why}", CliException.FailureExitCode);
        }
    }
}
