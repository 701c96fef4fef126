using System.Buffers;
using System.Globalization;
using System.Net;
using Salvo.Perf.Cli;
using Salvo.Perf.Impair;
using Salvo.Streams;

namespace Salvo.Perf.Transport;

/// <summary>
/// <c>salvo transport --listen</c>: an echoing <see cref="MessageTransportServer"/> that says at the end what it got and
/// answered over each transport, and what it knows was lost (the kernel's drops on its UDP socket, datagrams that
/// carried no message, replies refused).
/// </summary>
internal static class TransportServe
{
    public static async Task<int> RunAsync(CliConsole console, IPEndPoint endPoint, double seconds, CancellationToken cancellationToken)
    {
        var answered = new AnsweredMessages();
        var server = new MessageTransportServer(new MessageTransportServerOptions { EndPoint = endPoint },
            async (peer, message) => answered.Count(peer.Transport, await peer.SendAsync(message.ToArray()).ConfigureAwait(false)));
        await using (server.ConfigureAwait(false))
        {
            server.Start();
            console.Line($"salvo transport listening on {server.LocalEndPoint} (TCP and UDP) for {seconds.ToString(CultureInfo.InvariantCulture)} s");
            if (console.Format != OutputFormat.Text)
            {
                console.Note($"salvo transport: listening on {server.LocalEndPoint}");
            }

            try
            {
                await Task.Delay(TimeSpan.FromSeconds(seconds), cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // Ctrl+C ends serving.
            }

            // Stopped first, so that the counts are final: nothing arrives or is answered after them.
            await server.StopAsync(CancellationToken.None).ConfigureAwait(false);
            var report = TransportServeReport.From(server.LocalEndPoint!, server.GetStatistics(), answered);
            console.Document(report, LabJson.Indented.TransportServeReport, LabJson.Compact.TransportServeReport);
            console.Line(Describe(report));
            return 0;
        }
    }

    internal static string Describe(TransportServeReport report)
    {
        var kernel = report.UdpKernelDrops is { } drops ? $"{drops} dropped by the kernel (receive buffer full)" : "kernel drops not readable here";
        return string.Create(CultureInfo.InvariantCulture,
            $"UDP: {report.UdpReceived} message(s) received, {report.UdpAnswered} answered, {report.UdpHandshakes} handshake(s) answered; " +
            $"{kernel}, {report.UdpUnusable} datagram(s) without a message, {report.UdpSendErrors} send error(s).{Environment.NewLine}" +
            $"TCP: {report.TcpReceived} message(s) received, {report.TcpAnswered} answered.");
    }
}

/// <summary>Echoes the transport took, per transport (a TCP echo is refused once its connection closed).</summary>
internal sealed class AnsweredMessages
{
    private long _udp;
    private long _tcp;

    public long Udp => Interlocked.Read(ref _udp);

    public long Tcp => Interlocked.Read(ref _tcp);

    public void Count(TransportKind transport, bool taken)
    {
        if (taken)
        {
            Interlocked.Increment(ref transport == TransportKind.Udp ? ref _udp : ref _tcp);
        }
    }
}

/// <summary>The <c>salvo transport --listen --json</c> document, written when serving ends.</summary>
/// <param name="Command">"transport".</param>
/// <param name="Listen">The address served.</param>
/// <param name="UdpReceived">Messages received over UDP.</param>
/// <param name="UdpAnswered">Of them, echoed.</param>
/// <param name="UdpHandshakes">UDP handshakes answered.</param>
/// <param name="UdpKernelDrops">Datagrams the kernel dropped on the UDP socket (receive buffer full); absent where not readable.</param>
/// <param name="UdpUnusable">Datagrams that carried no message (cut, empty, of an unknown type).</param>
/// <param name="UdpSendErrors">Echoes and handshake answers the kernel refused to send.</param>
/// <param name="TcpReceived">Messages received over TCP.</param>
/// <param name="TcpAnswered">Of them, echoed (queued on a connection still open).</param>
internal sealed record TransportServeReport(string Command, string Listen, long UdpReceived, long UdpAnswered, long UdpHandshakes,
    long? UdpKernelDrops, long UdpUnusable, long UdpSendErrors, long TcpReceived, long TcpAnswered)
{
    public static TransportServeReport From(IPEndPoint listen, MessageTransportServerStatistics stats, AnsweredMessages answered) => new(
        "transport", listen.ToString(), stats.UdpMessagesReceived, answered.Udp, stats.UdpHandshakesAnswered, stats.UdpKernelDrops,
        stats.UdpDatagramsDropped, stats.UdpSendErrors, stats.TcpMessagesReceived, answered.Tcp);
}
