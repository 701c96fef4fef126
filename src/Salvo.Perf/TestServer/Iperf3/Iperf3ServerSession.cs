using System.Diagnostics;
using System.Threading.Channels;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// Serves one stock iperf3 UDP client on <c>salvo server</c>'s port in two parts. The handshake (cookie and
/// parameters) runs before the client has the test slot, bounded by a short deadline, so a client that sends
/// a cookie and nothing more holds no one up. The test (stream set-up through the server's receive engine, the
/// test, the results exchange, as iperf3 3.12 runs them) runs once it has the slot. A refused or broken test
/// ends with a reason on the server's log; the server then takes the next client.
/// </summary>
internal static class Iperf3ServerSession
{
    private static readonly TimeSpan StepTimeout = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Reads the cookie and the parameters within <paramref name="timeout"/> (from now). Returns the parameters,
    /// or null when they were refused: the client was sent iperf3's error and the reason is logged.
    /// </summary>
    /// <exception cref="InvalidDataException">A malformed cookie or parameters.</exception>
    /// <exception cref="TimeoutException">The cookie and parameters were not complete in time.</exception>
    /// <exception cref="EndOfStreamException">The client closed the connection.</exception>
    public static async Task<Iperf3Parameters?> HandshakeAsync(CliConsole console, Iperf3Control control, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        TimeSpan Left() => timeout - clock.Elapsed is var left && left > TimeSpan.Zero ? left : TimeSpan.FromTicks(1);
        Iperf3Parameters? parameters;
        Iperf3Error error;
        string? reason;
        try
        {
            if (Iperf3Cookie.Validate(await control.ReadAsync(Iperf3Cookie.Size, Left(), cancellationToken).ConfigureAwait(false)) is { } badCookie)
            {
                throw new InvalidDataException(badCookie);
            }

            await control.WriteStateAsync(Iperf3State.ParamExchange, cancellationToken).ConfigureAwait(false);
            parameters = Iperf3Parameters.Parse(await control.ReadJsonAsync(Left(), cancellationToken).ConfigureAwait(false), out error, out reason);
        }
        catch (TimeoutException)
        {
            throw new TimeoutException($"cookie and parameters not complete within {timeout.TotalSeconds:0.#} s (a stock client sends both at once)");
        }

        if (parameters is null)
        {
            await control.WriteErrorAsync(error, cancellationToken).ConfigureAwait(false);
            console.Note($"salvo server: refused iperf3 client {control.Remote}: {reason} (the client prints \"{error.Describe()}\")");
            return null;
        }

        if (parameters.Ignored.Count > 0)
        {
            console.Note($"salvo server: iperf3 client {control.Remote}: not applied: {string.Join(", ", parameters.Ignored)} (this server keeps its own socket settings)");
        }

        return parameters;
    }

    /// <summary>
    /// Runs the test the handshake agreed on. When the server stops during it, the side's counts so far are
    /// reported and the cancellation is thrown; the caller tells the client (SERVER_TERMINATE).
    /// </summary>
    public static async Task RunTestAsync(CliConsole console, Iperf3Control control, Iperf3Parameters parameters, IReceiveEngine engine, double interval, CancellationToken cancellationToken)
    {
        console.Line($"Accepted iperf3 client {control.Remote}: {parameters.Parallel} stream(s) of {parameters.Length} B for {parameters.Seconds} s at " +
            $"{(parameters.BitsPerSecondPerStream == 0 ? "unlimited" : ValueParsers.FormatBits(parameters.BitsPerSecondPerStream) + " per stream")}" +
            $"{(parameters.Reverse ? ", reverse (server sends)" : string.Empty)}");
        try
        {
            DatagramAddress[] sources;
            DatagramSocket[] sockets;
            try
            {
                (sources, sockets) = await AcceptStreamsAsync(control, engine, parameters.Parallel, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception) when (cancellationToken.IsCancellationRequested)
            {
                console.Line($"Test with iperf3 client {control.Remote} cut short while its streams were set up: the server is stopping.");
                throw;
            }

            if (parameters.Reverse)
            {
                await StartAsync(control, cancellationToken).ConfigureAwait(false);
                await SendAsync(console, control, sockets, parameters, interval, cancellationToken).ConfigureAwait(false);
                return;
            }

            // The streams' own sockets only answered the connect datagrams from the server's port: with them closed, the
            // data reaches the server's receive workers, which count every stream on one thread each.
            foreach (var socket in sockets)
            {
                socket.Dispose();
            }

            using var streams = new Iperf3EngineStreams(engine, sources, parameters.Counters64);
            await StartAsync(control, cancellationToken).ConfigureAwait(false);
            await ReceiveAsync(console, control, streams, engine.Backend, parameters, interval, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            engine.UnrecognisedDatagrams = null;
        }
    }

    /// <summary>
    /// Asks for the streams, then takes each stream's connect datagram from the receive engine (it arrives on
    /// the shared port), opens a socket connected to its sender on that port and answers from it. iperf3
    /// connects its streams one after another, each waiting for its reply. Returns each stream's source, in
    /// iperf3's stream order, and its socket.
    /// </summary>
    private static async Task<(DatagramAddress[] Sources, DatagramSocket[] Sockets)> AcceptStreamsAsync(Iperf3Control control, IReceiveEngine engine, int parallel, CancellationToken cancellationToken)
    {
        var connects = Channel.CreateBounded<DatagramAddress>(new BoundedChannelOptions(parallel * 4) { FullMode = BoundedChannelFullMode.DropWrite });
        var clientAddress = control.Remote.Address;
        engine.UnrecognisedDatagrams = (payload, source, _) =>
        {
            if (!Iperf3Datagram.IsConnectMessage(payload) || !source.ToIPAddress().Equals(clientAddress))
            {
                return false;
            }

            connects.Writer.TryWrite(source);
            return true;
        };
        await control.WriteStateAsync(Iperf3State.CreateStreams, cancellationToken).ConfigureAwait(false);
        var sockets = new List<DatagramSocket>();
        var sources = new List<DatagramAddress>();
        try
        {
            var local = engine.LocalEndPoint;
            while (sockets.Count < parallel)
            {
                using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
                deadline.CancelAfter(StepTimeout);
                DatagramAddress source;
                try
                {
                    source = await connects.Reader.ReadAsync(deadline.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
                {
                    throw new TimeoutException($"stream {sockets.Count + 1} of {parallel} sent no UDP connect datagram within {StepTimeout.TotalSeconds:F0} s");
                }

                if (sources.Contains(source))
                {
                    continue;
                }

                var socket = Iperf3StreamSocket.OpenOnServerPort(local, source.ToIPEndPoint(), engine.Backend);
                sockets.Add(socket);
                sources.Add(source);
                await socket.SendAsync(Iperf3Datagram.ConnectReply.ToArray(), cancellationToken).ConfigureAwait(false);
            }

            engine.UnrecognisedDatagrams = null;
            return (sources.ToArray(), sockets.ToArray());
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

    /// <summary>Every stream is set up: the client may send.</summary>
    private static async Task StartAsync(Iperf3Control control, CancellationToken cancellationToken)
    {
        await control.WriteStateAsync(Iperf3State.TestStart, cancellationToken).ConfigureAwait(false);
        await control.WriteStateAsync(Iperf3State.TestRunning, cancellationToken).ConfigureAwait(false);
    }

    private static async Task ReceiveAsync(CliConsole console, Iperf3Control control, Iperf3EngineStreams streams, DatagramBackend backend,
        Iperf3Parameters parameters, double interval, CancellationToken cancellationToken)
    {
        var cpuStart = CpuClock.Process();
        var clock = Stopwatch.StartNew();
        var counters = streams.Streams;
        var end = control.ExpectStateAsync(Iperf3State.TestEnd, TimeSpan.FromSeconds(parameters.Seconds + 30), cancellationToken);
        try
        {
            await TrafficReports.IntervalsAsync(console, "receiver", interval, () =>
            {
                var counts = counters.Select(s => s.Counts).ToArray();
                return (counts.Sum(c => c.Datagrams), counts.Sum(c => c.Bytes), counts.Sum(c => c.Lost), counts.Average(c => c.JitterNanoseconds) / 1000);
            }, end).ConfigureAwait(false);
            await end.ConfigureAwait(false);
        }
        catch (Exception) when (cancellationToken.IsCancellationRequested)
        {
            ReportCutShort(console, control, reverse: false, Iperf3Sides.Receiver(counters, null, Math.Max(clock.Elapsed.TotalSeconds, 1e-3), CpuClock.Process() - cpuStart, backend));
            throw;
        }

        var seconds = Math.Min(clock.Elapsed.TotalSeconds, parameters.Seconds);
        var cpu = CpuClock.Process() - cpuStart;
        var peer = await ExchangeResultsAsync(control, p =>
        {
            var sent = Iperf3Sides.MatchStreams(p, counters.Count);
            streams.StopWhenCaughtUp(sent, TimeSpan.FromSeconds(2));
            return Iperf3Sides.ReceiverResults(counters, sent, seconds, cpu);
        }, cancellationToken).ConfigureAwait(false);
        var local = Iperf3Sides.Receiver(counters, Iperf3Sides.MatchStreams(peer, counters.Count), seconds, cpu, backend);
        Report(console, control, reverse: false, local, Iperf3Sides.PeerSender(peer, seconds));
    }

    private static async Task SendAsync(CliConsole console, Iperf3Control control, DatagramSocket[] sockets, Iperf3Parameters parameters, double interval, CancellationToken cancellationToken)
    {
        var targets = sockets.Select(s => s.RemoteAddress.ToIPEndPoint()).ToArray();
        var sender = new TrafficSender(sockets, targets, parameters.Length, parameters.BitsPerSecondPerStream * parameters.Parallel, parameters.Seconds,
            Iperf3Stamp.For(parameters.Counters64));
        var cpuStart = CpuClock.Process();
        var clock = Stopwatch.StartNew();
        try
        {
            sender.Start();
            var end = control.ExpectStateAsync(Iperf3State.TestEnd, TimeSpan.FromSeconds(parameters.Seconds + 30), cancellationToken);
            await TrafficReports.IntervalsAsync(console, "sender", interval, () => (sender.Datagrams, sender.Bytes, 0, 0), end).ConfigureAwait(false);
            await end.ConfigureAwait(false);
        }
        catch (Exception) when (cancellationToken.IsCancellationRequested)
        {
            sender.Dispose();
            ReportCutShort(console, control, reverse: true, TrafficReports.Sender(sender, Math.Max(clock.Elapsed.TotalSeconds, 1e-3), CpuClock.Process() - cpuStart));
            throw;
        }
        finally
        {
            // The client's timer decides the end, as with iperf3's own server; the counts stay readable.
            sender.Dispose();
        }

        var seconds = Math.Min(clock.Elapsed.TotalSeconds, parameters.Seconds);
        var cpu = CpuClock.Process() - cpuStart;
        var local = TrafficReports.Sender(sender, seconds, cpu);
        var peer = await ExchangeResultsAsync(control, _ => Iperf3Sides.SenderResults(sender, parameters.Length, seconds, cpu), cancellationToken).ConfigureAwait(false);
        Report(console, control, reverse: true, local, Iperf3Sides.PeerReceiver(peer, sender.SentPerFlow, seconds));
    }

    /// <summary>
    /// The end of a test: the client sends its results first, the server answers with its own (built from
    /// the client's per-stream counts, so the tail counts as lost), then asks the client to print.
    /// </summary>
    private static async Task<Iperf3Results> ExchangeResultsAsync(Iperf3Control control, Func<Iperf3Results, Iperf3Results> local, CancellationToken cancellationToken)
    {
        await control.WriteStateAsync(Iperf3State.ExchangeResults, cancellationToken).ConfigureAwait(false);
        var peer = Iperf3Results.Parse(await control.ReadJsonAsync(StepTimeout, cancellationToken).ConfigureAwait(false));
        var ours = local(peer);
        await control.WriteJsonAsync(ours.ToJson(), cancellationToken).ConfigureAwait(false);
        await control.WriteStateAsync(Iperf3State.DisplayResults, cancellationToken).ConfigureAwait(false);
        await control.ExpectStateAsync(Iperf3State.IperfDone, StepTimeout, cancellationToken).ConfigureAwait(false);
        return peer;
    }

    private static void ReportCutShort(CliConsole console, Iperf3Control control, bool reverse, SideReport local) =>
        TrafficReports.ServerCutShort(console, control.Remote.ToString(), reverse, local, "iperf3 client ");

    private static void Report(CliConsole console, Iperf3Control control, bool reverse, SideReport local, SideReport peer) =>
        TrafficReports.ServerReport(console, control.Remote.ToString(), reverse, local, peer);
}
