using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Threading.Channels;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;
using Salvo.Perf.Traffic;

namespace Salvo.Perf.Iperf3;

/// <summary>
/// Serves one stock iperf3 UDP client on <c>salvo server</c>'s port: cookie, parameters, stream set-up
/// through the server's receive engine, the test, and the results exchange, as iperf3 3.12 runs it.
/// A refused or broken test ends with a reason on the server's log; the server then takes the next client.
/// </summary>
internal static class Iperf3ServerSession
{
    private static readonly TimeSpan StepTimeout = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Serves the client on <paramref name="client"/>; returns whether it got as far as a test (its parameters were
    /// accepted), which is what uses up 'salvo server -1'. Cancellation (the server stopping) is thrown.
    /// </summary>
    public static async Task<bool> ServeAsync(CliConsole console, Socket client, IReceiveEngine engine, double interval, CancellationToken cancellationToken)
    {
        using var control = new Iperf3Control(client);
        var accepted = false;
        try
        {
            await RunAsync(console, control, engine, interval, () => accepted = true, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is InvalidDataException or TimeoutException or EndOfStreamException or IOException or SocketException)
        {
            cancellationToken.ThrowIfCancellationRequested();
            console.Note($"salvo server: iperf3 client {control.Remote}: test ended: {e.Message}");
        }
        finally
        {
            engine.UnrecognisedDatagrams = null;
        }

        return accepted;
    }

    private static async Task RunAsync(CliConsole console, Iperf3Control control, IReceiveEngine engine, double interval, Action accepted, CancellationToken cancellationToken)
    {
        if (Iperf3Cookie.Validate(await control.ReadAsync(Iperf3Cookie.Size, StepTimeout, cancellationToken).ConfigureAwait(false)) is { } badCookie)
        {
            throw new InvalidDataException(badCookie);
        }

        await control.WriteStateAsync(Iperf3State.ParamExchange, cancellationToken).ConfigureAwait(false);
        var parameters = Iperf3Parameters.Parse(await control.ReadJsonAsync(StepTimeout, cancellationToken).ConfigureAwait(false), out var error, out var reason);
        if (parameters is null)
        {
            await control.WriteErrorAsync(error, cancellationToken).ConfigureAwait(false);
            console.Note($"salvo server: refused iperf3 client {control.Remote}: {reason} (the client prints \"{error.Describe()}\")");
            return;
        }

        if (parameters.Ignored.Count > 0)
        {
            console.Note($"salvo server: iperf3 client {control.Remote}: not applied: {string.Join(", ", parameters.Ignored)} (this server keeps its own socket settings)");
        }

        accepted();
        console.Line($"Accepted iperf3 client {control.Remote}: {parameters.Parallel} stream(s) of {parameters.Length} B for {parameters.Seconds} s at " +
            $"{(parameters.BitsPerSecondPerStream == 0 ? "unlimited" : ValueParsers.FormatBits(parameters.BitsPerSecondPerStream) + " per stream")}" +
            $"{(parameters.Reverse ? ", reverse (server sends)" : string.Empty)}");
        var sockets = await AcceptStreamsAsync(control, engine, parameters.Parallel, cancellationToken).ConfigureAwait(false);
        if (parameters.Reverse)
        {
            await SendAsync(console, control, sockets, parameters, interval, cancellationToken).ConfigureAwait(false);
        }
        else
        {
            await ReceiveAsync(console, control, sockets, parameters, interval, cancellationToken).ConfigureAwait(false);
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
            await TrafficReports.IntervalsAsync(console, "receiver", interval, () =>
            {
                var counts = receivers.Select(r => r.Counts).ToArray();
                return (counts.Sum(c => c.Datagrams), counts.Sum(c => c.Bytes), counts.Sum(c => c.Lost), counts.Average(c => c.JitterNanoseconds) / 1000);
            }, end).ConfigureAwait(false);
            await end.ConfigureAwait(false);
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

    private static void Report(CliConsole console, Iperf3Control control, bool reverse, SideReport local, SideReport peer)
    {
        var report = new ServerTestReport("server", EnvironmentInfo.Capture(), control.Remote.ToString(), reverse, local, peer);
        console.Document(report, PerfJson.Indented.ServerTestReport, PerfJson.Compact.ServerTestReport);
        TrafficReports.PrintSummary(console, local, peer);
    }
}
