using System.Buffers;
using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Threading.Channels;
using Salvo.Perf.Cli;
using Salvo.Perf.Impair;
using Salvo.Streams;

namespace Salvo.Perf.Transport;

/// <summary>
/// <c>salvo transport</c>: which transport a <see cref="MessageTransport"/> ends up on between this host and
/// another. With --listen it is the echoing <see cref="MessageTransportServer"/>; with HOST:PORT it connects,
/// reports the transport chosen and why, and round-trips a few messages. Answers "does UDP get through?"
/// through a firewall without guessing.
/// </summary>
internal static class TransportCommand
{
    public static Command Create(CliConsole console)
    {
        var target = new Argument<string?>("HOST:PORT") { Description = "The address and port of a 'salvo transport --listen' to connect to; omit it with --listen.", Arity = ArgumentArity.ZeroOrOne };
        var listen = new Option<string?>("--listen") { Description = "Serve instead: ADDRESS:PORT (TCP and UDP, one port number; port 0 picks one). Defaults to connecting.", HelpName = "ADDRESS:PORT" };
        var mode = CommonOptions.Enum("--mode", TransportMode.UdpFirst, "UdpFirst (handshake, TCP fallback), UdpOnly (datagrams, no handshake) or TcpOnly.");
        var messages = CommonOptions.Int("--messages", "-n", "COUNT", 10, 0, 100_000, "Messages round-tripped after connecting.");
        var handshake = CommonOptions.Int("--handshake-ms", null, "MS", 500, 10, 60_000, "How long each UDP handshake attempt waits, in ms.");
        var time = CommonOptions.Seconds("--time", "-t", 30, "With --listen: seconds to serve.");
        var watch = CommonOptions.Int("--watch", null, "SECONDS", 0, 0, 3_600,
            "Instead of -n: send numbered messages for SECONDS (then stop), one in flight, resending one whose echo is 1 s late, and print each path switch and TCP close or reconnect as it happens; 0 is off.");
        var interval = CommonOptions.Int("--interval-ms", null, "MS", 50, 1, 60_000, "With --watch: the pause after each echoed message, in ms.");
        var command = new Command("transport",
            "Connects a MessageTransport to HOST:PORT and reports whether it runs over UDP or fell back to TCP (and why), " +
            "or with --listen serves as an echoing MessageTransportServer for -t seconds.")
        {
            target, listen, mode, messages, handshake, time, watch, interval,
        };
        command.SetAction((parse, cancellationToken) =>
        {
            if (parse.GetValue(listen) is { } address)
            {
                return TransportServe.RunAsync(console, ImpairCommand.ParseEndPoint(address, "--listen"), parse.GetValue(time), cancellationToken);
            }

            var server = parse.GetValue(target) ?? throw new CliException("transport: give HOST:PORT to connect to, or --listen ADDRESS:PORT to serve.");
            var plan = new ConnectPlan(parse.GetValue(mode), parse.GetValue(messages), TimeSpan.FromMilliseconds(parse.GetValue(handshake)),
                TimeSpan.FromSeconds(parse.GetValue(watch)), TimeSpan.FromMilliseconds(parse.GetValue(interval)));
            return ConnectAsync(console, ImpairCommand.ParseEndPoint(server, "server"), plan, cancellationToken);
        });
        return command;
    }

    private static async Task<int> ConnectAsync(CliConsole console, IPEndPoint server, ConnectPlan plan, CancellationToken cancellationToken)
    {
        var (mode, count) = (plan.Mode, plan.Count);
        var echoes = Channel.CreateUnbounded<int>();
        await using var transport = new MessageTransport(new MessageTransportOptions { Mode = mode, HandshakeTimeout = plan.Handshake },
            (_, message) =>
            {
                echoes.Writer.TryWrite(ReadNumber(message));
                return ValueTask.CompletedTask;
            });
        string reason = string.Empty;
        var switches = new List<TransportSwitch>();
        Stopwatch? watching = null;
        transport.TransportSelected += (_, e) =>
        {
            reason = e.Reason;
            if (watching is not null)
            {
                var change = new TransportSwitch(Math.Round(watching.Elapsed.TotalSeconds, 2), e.Transport.ToString(), e.Reason);
                lock (switches)
                {
                    switches.Add(change);
                }

                console.Note(string.Create(CultureInfo.InvariantCulture, $"salvo transport: {change.AtSeconds:F2} s: now on {change.Transport}: {change.Reason}"));
            }
        };
        var clock = Stopwatch.StartNew();
        string At() => string.Create(CultureInfo.InvariantCulture, $"{(watching ?? clock).Elapsed.TotalSeconds:F2} s");
        transport.TcpConnectionClosed += (_, e) => console.Note(
            $"salvo transport: {At()}: the TCP connection closed ({e.Reason}); " + (e.Reconnecting ? "reconnecting." : "not reconnecting: sends are refused from now on."));
        transport.TcpConnectionReopened += (_, e) => console.Note(string.Create(CultureInfo.InvariantCulture,
            $"salvo transport: {At()}: TCP connection re-established after {e.Attempts} attempt(s), {e.Downtime.TotalSeconds:F2} s without one."));
        try
        {
            await transport.ConnectAsync(server, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is System.Net.Sockets.SocketException or TimeoutException)
        {
            throw new CliException($"transport: cannot connect to {server} ({mode}): {e.Message}", CliException.FailureExitCode);
        }

        var connectMs = clock.Elapsed.TotalMilliseconds;
        if (plan.Watch > TimeSpan.Zero)
        {
            watching = Stopwatch.StartNew();
            var watched = await WatchedMessages.RunAsync(transport, echoes.Reader, plan.Watch, plan.Interval, cancellationToken).ConfigureAwait(false);
            TransportSwitch[] seen;
            lock (switches)
            {
                seen = [.. switches];
            }

            var stats = transport.GetStatistics();
            var watchReport = new TransportReport("transport", server.ToString(), mode.ToString(), transport.Transport.ToString(), reason,
                Math.Round(connectMs, 1), watched.Sent, watched.Sent, watched.Echoed,
                watched.Complete ? null : $"{watched.Sent - watched.Echoed - watched.InFlightAtEnd} message(s) never echoed, {watched.DuplicateEchoes} echoed twice")
            {
                Switches = seen,
                Resent = watched.Resent,
                DuplicateEchoes = watched.DuplicateEchoes,
                Refused = watched.Refused,
                InFlightAtEnd = watched.InFlightAtEnd,
                Reconnects = stats.TcpReconnects,
                UdpKernelDrops = stats.UdpKernelDrops,
            };
            console.Document(watchReport, LabJson.Indented.TransportReport, LabJson.Compact.TransportReport);
            console.Line($"{server}: sent {watched.Sent} numbered message(s) in {plan.Watch.TotalSeconds:0} s, {watched.Echoed} echoed " +
                $"({watched.InFlightAtEnd} still in flight at the end), {watched.Resent} resent after a 1 s wait, {watched.DuplicateEchoes} echoed more often than sent, " +
                $"{watched.Refused} send(s) refused; {seen.Length} path switch(es), {stats.TcpReconnects} TCP reconnect(s); now on {transport.Transport}.");
            return watched.Complete ? 0 : CliException.FailureExitCode;
        }

        var outcome = await EchoRoundTrips.RunAsync(transport, echoes.Reader, count, cancellationToken).ConfigureAwait(false);
        var report = new TransportReport("transport", server.ToString(), mode.ToString(), transport.Transport.ToString(), reason,
            Math.Round(connectMs, 1), count, outcome.Sent, outcome.Echoed, outcome.Failure);
        console.Document(report, LabJson.Indented.TransportReport, LabJson.Compact.TransportReport);
        console.Line($"{server}: {report.Transport} ({report.Reason}); connected in {report.ConnectMilliseconds:F1} ms; " +
            $"sent {outcome.Sent} of {count} message(s), {outcome.Echoed} echoed.");
        if (outcome.Failure is { } failure)
        {
            console.Note($"salvo transport: {failure}.");
            if (outcome.Echoed == 0 && transport.Transport == TransportKind.Udp)
            {
                console.Note($"salvo transport: UDP to or from {server} is dropped on the path, or nothing answers on UDP there" +
                    (mode == TransportMode.UdpOnly ? " (UdpOnly skips the handshake that would have found this; UdpFirst would fall back to TCP)." : "."));
            }
        }

        return outcome.Echoed >= count ? 0 : CliException.FailureExitCode;
    }

    /// <summary>The number a --watch message carries (4 bytes, big-endian); -1 for the unnumbered messages of -n.</summary>
    private static int ReadNumber(ReadOnlySequence<byte> message)
    {
        if (message.Length != sizeof(int))
        {
            return -1;
        }

        Span<byte> number = stackalloc byte[sizeof(int)];
        message.CopyTo(number);
        return System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(number);
    }
}

/// <summary>What a connecting run does: the transport's mode and handshake wait, then -n round trips or a --watch run.</summary>
internal sealed record ConnectPlan(TransportMode Mode, int Count, TimeSpan Handshake, TimeSpan Watch, TimeSpan Interval);

/// <summary>The <c>salvo transport --json</c> document of a connecting run.</summary>
/// <param name="Command">"transport".</param>
/// <param name="Server">Where it connected.</param>
/// <param name="Mode">The mode asked for.</param>
/// <param name="Transport">"Udp" or "Tcp": what it ended up on.</param>
/// <param name="Reason">Why (the handshake answered, no answer within the timeout, port unreachable, ...).</param>
/// <param name="ConnectMilliseconds">How long choosing and connecting took.</param>
/// <param name="Requested">Messages asked for (-n).</param>
/// <param name="Sent">Messages the transport really took: a UDP datagram handed to the socket, a TCP message queued.</param>
/// <param name="Echoed">Echoes received.</param>
/// <param name="Failure">Why fewer echoes came back than were asked for (no reply within the timeout, refused, stopped); absent when all came.</param>
internal sealed record TransportReport(string Command, string Server, string Mode, string Transport, string Reason, double ConnectMilliseconds,
    int Requested, int Sent, int Echoed, string? Failure)
{
    /// <summary>With --watch: each path switch after connect, in order; absent otherwise.</summary>
    public IReadOnlyList<TransportSwitch>? Switches { get; init; }

    /// <summary>With --watch: sends of a number again after its echo was 1 s late; absent otherwise.</summary>
    public int? Resent { get; init; }

    /// <summary>With --watch: echoes of a number already echoed (a message delivered twice); absent otherwise.</summary>
    public int? DuplicateEchoes { get; init; }

    /// <summary>With --watch: sends the transport refused (its TCP connection closed and not yet back), each tried again; absent otherwise.</summary>
    public int? Refused { get; init; }

    /// <summary>With --watch: 1 when the time ran out while the last message still had its first echo wait to go (not counted as lost); absent otherwise.</summary>
    public int? InFlightAtEnd { get; init; }

    /// <summary>With --watch: times the TCP connection closed and was opened again; absent otherwise.</summary>
    public long? Reconnects { get; init; }

    /// <summary>With --watch: datagrams the kernel dropped on this end's UDP sockets (receive buffer full); absent otherwise or where not readable.</summary>
    public long? UdpKernelDrops { get; init; }
}
