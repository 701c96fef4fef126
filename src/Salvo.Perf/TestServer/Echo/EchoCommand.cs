using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.TestServer.Echo;

/// <summary><c>salvo server --echo</c>: runs the echo service with interval lines until Ctrl+C.</summary>
internal static class EchoCommand
{
    public static async Task<int> RunAsync(CliConsole console, IPAddress address, int port, int workers, double interval, EchoSettings settings, CancellationToken cancellationToken)
    {
        EchoService service;
        try
        {
            service = await EchoService.StartAsync(address, port, workers, settings).ConfigureAwait(false);
        }
        catch (SocketException e)
        {
            throw ServerCommand.Explain(e, address, port) ?? new CliException($"-p/--port: cannot listen on {address}:{port}: {e.Message}", CliException.FailureExitCode);
        }

        await using (service.ConfigureAwait(false))
        {
            console.Line($"salvo server --echo listening on {service.LocalEndPoint} (UDP and TCP echo, RFC 862; {service.Workers} UDP worker(s), {service.Backend} backend; " +
                (settings.RatePerSource is { } rate ? $"at most {Format.Count(rate)} datagrams/s per source)" : "no rate limit)"));
            if (console.Format != OutputFormat.Text)
            {
                console.Note($"salvo server: listening on {service.LocalEndPoint}");
            }

            var previous = default(EchoTotals);
            using (new IntervalTicker(interval, (start, end) =>
            {
                var now = service.Snapshot();
                var delta = now - previous;
                previous = now;
                if (delta.UdpReceived != 0 || delta.TcpConnections != 0 || delta.TcpBytesEchoed != 0 || delta.Dropped != 0)
                {
                    console.Line(EchoReports.IntervalLine(start, end, delta));
                }
            }))
            {
                await service.ServeTcpAsync(cancellationToken).ConfigureAwait(false);
            }

            var totals = service.Snapshot();
            console.Line(EchoReports.TotalLine(totals));
            console.Record(new EchoTotalsReport("echo", totals, service.Backend == DatagramBackend.AfXdp ? FrameDropReport.ByReason(service.FrameDrops) : null),
                PerfJson.Compact.EchoTotalsReport);
            if (service.Backend == DatagramBackend.AfXdp)
            {
                console.Line($"echo frames dropped by the AF_XDP receive checks: {FrameDropReport.Describe(service.FrameDrops)}");
            }
        }

        return 0;
    }
}
