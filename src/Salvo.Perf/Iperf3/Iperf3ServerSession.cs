using System.Diagnostics;
using System.Net;
using System.Threading.Channels;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Traffic;

namespace Salvo.Perf.Iperf3;

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
            DatagramSocket[] sockets;
            try
            {
                sockets = await AcceptStreamsAsync(control, engine, parameters.Parallel, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception) when (cancellationToken.IsCancellationRequested)
            {
                console.Line($"Test with iperf3 client {control.Remote} cut short while its streams were set up: the server is stopping.");
                throw;
            }

            if (parameters.Reverse)
            {
                await SendAsync(console, control, sockets, parameters, interval, cancellationToken).ConfigureAwait(false);
            }
            else
            {
                await ReceiveAsync(console, control, sockets, parameters, interval, cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            engine.UnrecognisedDatagrams = null;
        }
    }

    /// <summary>
    /// Asks for the streams, then takes each stream's connect datagram from the receive engine (it arrives on
    /// the shared port), opens a socket connected to its sender on that port and answers from it. iperf3
    /// connects its streams one after another, each waiting for its reply.
    /// </summary>
    private static async Task<DatagramSocket[]> AcceptStreamsAsync(Iperf3Control control, IReceiveEngine engine, int parallel, CancellationToken cancellationToken)
    {
        var connects = Channel.CreateBounded<IPEndPoint>(new BoundedChannelOptions(parallel * 4) { FullMode = BoundedChannelFullMode.DropWrite });
        var clientAddress = control.Remote.Address;
        engine.UnrecognisedDatagrams = (payload, source) =>
        {
            if (Iperf3Datagram.IsConnectMessage(payload) && source.ToIPAddress().Equals(clientAddress))
            {
                connects.Writer.TryWrite(source.ToIPEndPoint());
            }
        };
        await control.WriteStateAsync(Iperf3State.CreateStreams, cancellationToken).ConfigureAwait(false);
        var sockets = new List<DatagramSocket>();
        try
        {
            var local = engine.LocalEndPoint;
            while (sockets.Count < parallel)
            {
                using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
                deadline.CancelAfter(StepTimeout);
                IPEndPoint source;
                try
                {
                    source = await connects.Reader.ReadAsync(deadline.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
                {
                    throw new TimeoutException($"stream {sockets.Count + 1} of {parallel} sent no UDP connect datagram within {StepTimeout.TotalSeconds:F0} s");
                }

                if (sockets.Any(s => s.RemoteAddress.ToIPEndPoint().Equals(source)))
                {
                    continue;
                }

                var socket = Iperf3StreamSocket.OpenOnServerPort(local, source, engine.Backend);
                sockets.Add(socket);
                await socket.SendAsync(Iperf3Datagram.ConnectReply.ToArray(), cancellationToken).ConfigureAwait(false);
            }

            engine.UnrecognisedDatagrams = null;
            await control.WriteStateAsync(Iperf3State.TestStart, cancellationToken).ConfigureAwait(false);
            await control.WriteStateAsync(Iperf3State.TestRunning, cancellationToken).ConfigureAwait(false);
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

    private static async Task ReceiveAsync(CliConsole console, Iperf3Control control, DatagramSocket[] sockets, Iperf3Parameters parameters, double interval, CancellationToken cancellationToken)
    {
        var receivers = sockets.Select((s, i) => new Iperf3StreamReceiver(s, Iperf3Datagram.StreamId(i), parameters.Counters64)).ToArray();
        try
        {
            var cpuStart = CpuClock.Process();
            var clock = Stopwatch.StartNew();
            foreach (var receiver in receivers)
            {
                receiver.Start();
            }

            var end = control.ExpectStateAsync(Iperf3State.TestEnd, TimeSpan.FromSeconds(parameters.Seconds + 30), cancellationToken);
            try
            {
                await TrafficReports.IntervalsAsync(console, "receiver", interval, () =>
                {
                    var counts = receivers.Select(r => r.Counts).ToArray();
                    return (counts.Sum(c => c.Datagrams), counts.Sum(c => c.Bytes), counts.Sum(c => c.Lost), counts.Average(c => c.JitterNanoseconds) / 1000);
                }, end).ConfigureAwait(false);
                await end.ConfigureAwait(false);
            }
            catch (Exception) when (cancellationToken.IsCancellationRequested)
            {
                ReportCutShort(console, control, reverse: false, Iperf3Sides.Receiver(receivers, null, Math.Max(clock.Elapsed.TotalSeconds, 1e-3), CpuClock.Process() - cpuStart));
                throw;
            }

            var seconds = Math.Min(clock.Elapsed.TotalSeconds, parameters.Seconds);
            Iperf3StreamReceiver.StopAllWhenIdle(receivers, TimeSpan.FromSeconds(2));

            var cpu = CpuClock.Process() - cpuStart;
            var peer = await ExchangeResultsAsync(control, p => Iperf3Sides.ReceiverResults(receivers, Iperf3Sides.MatchStreams(p, receivers.Length), seconds, cpu), cancellationToken).ConfigureAwait(false);
            var local = Iperf3Sides.Receiver(receivers, Iperf3Sides.MatchStreams(peer, receivers.Length), seconds, cpu);
            Report(console, control, reverse: false, local, Iperf3Sides.PeerSender(peer, seconds));
        }
        finally
        {
            foreach (var receiver in receivers)
            {
                receiver.Dispose();
            }
        }
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
