using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;
using Salvo.Server;

namespace Salvo.Perf.TestServer.Echo;

/// <summary>The echo service's lines: what was echoed and what was dropped, by reason.</summary>
internal static class EchoReports
{
    /// <summary>One interval: rates, then the drops of the interval.</summary>
    public static string IntervalLine(double start, double end, EchoTotals delta)
    {
        var seconds = end - start;
        return $"echo {Format.Fixed(start, 2)}-{Format.Fixed(end, 2)} s: UDP {Format.Count(delta.UdpEchoed / seconds)} echoes/s " +
            $"({ValueParsers.FormatBits(delta.UdpBytesEchoed * 8 / seconds)}), TCP {ValueParsers.FormatBits(delta.TcpBytesEchoed * 8 / seconds)}; {Drops(delta)}";
    }

    /// <summary>Everything since the start.</summary>
    public static string TotalLine(EchoTotals totals) =>
        $"echo total: UDP {Format.Count(totals.UdpReceived)} received, {Format.Count(totals.UdpEchoed)} echoed; " +
        $"TCP {Format.Count(totals.TcpConnections)} connection(s), {Format.Count(totals.TcpBytesEchoed)} bytes echoed; {Drops(totals)}";

    private static string Drops(EchoTotals t) =>
        $"drops: rate_limited {Format.Count(t.RateLimited)}, " +
        string.Concat(DatagramDropCounts.Reasons.Select(reason => $"{DatagramDropCounts.NameOf(reason)} {Format.Count(t.ServerDrops[reason])}, ")) +
        $"send_error {Format.Count(t.SendErrors)}, kernel {(t.KernelDrops is { } k ? Format.Count(k) : "n/a")}, tcp_refused {Format.Count(t.TcpRefused)}";
}

/// <summary>The document <c>salvo server --echo --json</c> prints when it stops: what it echoed and dropped since it started.</summary>
/// <param name="Command">"echo".</param>
/// <param name="Totals">Everything since the start.</param>
/// <param name="FrameDrops">On AF_XDP: frames its receive checks dropped, by reason; null on other backends.</param>
internal sealed record EchoTotalsReport(string Command, EchoTotals Totals, Dictionary<string, long>? FrameDrops);
