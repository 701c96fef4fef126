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
        var target = new Argument<string?>("server") { Description = "HOST:PORT of a 'salvo transport --listen' to connect to.", Arity = ArgumentArity.ZeroOrOne, HelpName = "HOST:PORT" };
        var listen = new Option<string?>("--listen") { Description = "Serve instead: ADDRESS:PORT (TCP and UDP, one port number; port 0 picks one). Defaults to connecting.", HelpName = "ADDRESS:PORT" };
        var mode = new Option<TransportMode>("--mode") { Description = "UdpFirst (handshake, TCP fallback), UdpOnly or TcpOnly. Defaults to UdpFirst.", DefaultValueFactory = _ => TransportMode.UdpFirst };
        var messages = CommonOptions.Int("--messages", "-n", "COUNT", 10, 0, 100_000, "Messages round-tripped after connecting.");
        var handshake = CommonOptions.Int("--handshake-ms", null, "MS", 500, 10, 60_000, "How long each UDP handshake attempt waits, in ms.");
        var time = CommonOptions.Seconds("--time", "-t", 30, "With --listen: seconds to serve.");
        var command = new Command("transport",
            "Connects a MessageTransport to HOST:PORT and reports whether it runs over UDP or fell back to TCP (and why), " +
            "or with --listen serves as an echoing MessageTransportServer for -t seconds.")
        {
            target, listen, mode, messages, handshake, time,
        };
        command.SetAction((parse, cancellationToken) =>
        {
            if (parse.GetValue(listen) is { } address)
            {
                return ServeAsync(console, ImpairCommand.ParseEndPoint(address, "--listen"), parse.GetValue(time), cancellationToken);
            }

            var server = parse.GetValue(target) ?? throw new CliException("transport: give HOST:PORT to connect to, or --listen ADDRESS:PORT to serve.");
            return ConnectAsync(console, ImpairCommand.ParseEndPoint(server, "server"), parse.GetValue(mode), parse.GetValue(messages),
                TimeSpan.FromMilliseconds(parse.GetValue(handshake)), cancellationToken);
        });
        return command;
    }

    private static async Task<int> ServeAsync(CliConsole console, IPEndPoint endPoint, double seconds, CancellationToken cancellationToken)
    {
        await using var server = new MessageTransportServer(new MessageTransportServerOptions { EndPoint = endPoint },
            static async (peer, message) => await peer.SendAsync(message.ToArray()).ConfigureAwait(false));
        server.Start();
        console.Line($"salvo transport listening on {server.LocalEndPoint} (TCP and UDP) for {seconds.ToString(CultureInfo.InvariantCulture)} s");
        console.Note($"salvo transport: listening on {server.LocalEndPoint}");
        try
        {
            await Task.Delay(TimeSpan.FromSeconds(seconds), cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // Ctrl+C ends serving.
        }

        console.Line($"Answered {server.HandshakesAnswered} UDP handshake(s).");
        return 0;
    }

    private static async Task<int> ConnectAsync(CliConsole console, IPEndPoint server, TransportMode mode, int count, TimeSpan handshake, CancellationToken cancellationToken)
    {
        var echoes = Channel.CreateUnbounded<int>();
        await using var transport = new MessageTransport(new MessageTransportOptions { Mode = mode, HandshakeTimeout = handshake },
            (_, message) =>
            {
                echoes.Writer.TryWrite((int)message.Length);
                return ValueTask.CompletedTask;
            });
        string reason = string.Empty;
        transport.TransportSelected += (_, e) => reason = e.Reason;
        var clock = Stopwatch.StartNew();
        await transport.ConnectAsync(server, cancellationToken).ConfigureAwait(false);
        var connectMs = clock.Elapsed.TotalMilliseconds;
        var echoed = 0;
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(10));
        try
        {
            for (var i = 0; i < count; i++)
            {
                // One in flight: over UDP a lost message or echo shows as a missing echo, not a stall.
                await transport.SendAsync(new byte[64], timeout.Token).ConfigureAwait(false);
                using var each = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token);
                each.CancelAfter(TimeSpan.FromSeconds(1));
                await echoes.Reader.ReadAsync(each.Token).ConfigureAwait(false);
                echoed++;
            }
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            // Counted below: echoed < sent.
        }

        var report = new TransportReport("transport", server.ToString(), mode.ToString(), transport.Transport.ToString(), reason, Math.Round(connectMs, 1), count, echoed);
        console.Document(report, LabJson.Indented.TransportReport, LabJson.Compact.TransportReport);
        console.Line($"{server}: {report.Transport} ({report.Reason}); connected in {report.ConnectMilliseconds:F1} ms; {echoed} of {count} message(s) echoed.");
        return echoed == count ? 0 : CliException.FailureExitCode;
    }
}

/// <summary>The <c>salvo transport --json</c> document of a connecting run.</summary>
/// <param name="Command">"transport".</param>
/// <param name="Server">Where it connected.</param>
/// <param name="Mode">The mode asked for.</param>
/// <param name="Transport">"Udp" or "Tcp": what it ended up on.</param>
/// <param name="Reason">Why (the handshake answered, no answer within the timeout, port unreachable, ...).</param>
/// <param name="ConnectMilliseconds">How long choosing and connecting took.</param>
/// <param name="Sent">Messages sent.</param>
/// <param name="Echoed">Echoes received.</param>
internal sealed record TransportReport(string Command, string Server, string Mode, string Transport, string Reason, double ConnectMilliseconds, int Sent, int Echoed);
