using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Lab;

/// <summary>The two tables of <c>salvo lab</c>, with each figure beside the kernel path's and C's of the same point.</summary>
internal static class LabPrinter
{
    public static void Print(CliConsole console, LabReport report)
    {
        var s = report.Settings;
        console.Line($"salvo lab: medians of {s.Rounds} interleaved round(s), {Format.Fixed(s.Seconds, 1)} s per point; {report.Placement}");
        console.Line("datagrams/s: C's sendmmsg sender (udplimit send, connected) feeds each receiver in turn; CPU: the receiving process's user + system time per datagram");
        RateTable(report.Rates).Write(console);
        console.Line($"request/response: {s.RequestBytes} B both ways, {Format.Fixed(s.WarmupSeconds, 1)} s warm-up; Salvo: salvo rr against salvo server on the same backend; C: udplimit ppclient against ppserver");
        RrTable(report.RequestResponse).Write(console);
        console.Line($"{report.Environment.TimestampUtc}, {report.Environment.Describe()}; load average at the end {report.LoadAverageAtEnd}");
        console.Document(report, PerfJson.Indented.LabReport, PerfJson.Compact.LabReport);
    }

    public static TextTable RateTable(IReadOnlyList<LabRatePoint> points)
    {
        var table = new TextTable("receiver", "payload B", "datagrams/s", "x kernel", "x C", "CPU ns/datagram", "x kernel", "x C", "backend, or why not measured");
        foreach (var p in points)
        {
            var kernel = points.FirstOrDefault(o => o.Receiver == LabPaths.Kernel && o.PayloadBytes == p.PayloadBytes);
            var c = points.FirstOrDefault(o => o.Receiver == LabPaths.C && o.PayloadBytes == p.PayloadBytes);
            table.Add(p.Receiver, Format.Count(p.PayloadBytes), Figure(p.DatagramsPerSecond, 0),
                Format.Ratio(Ratio(p.DatagramsPerSecond, kernel?.DatagramsPerSecond)), Format.Ratio(Ratio(p.DatagramsPerSecond, c?.DatagramsPerSecond)),
                Figure(p.CpuNanosecondsPerDatagram, 0),
                Format.Ratio(Ratio(p.CpuNanosecondsPerDatagram, kernel?.CpuNanosecondsPerDatagram)), Format.Ratio(Ratio(p.CpuNanosecondsPerDatagram, c?.CpuNanosecondsPerDatagram)),
                p.NotMeasured ?? p.Backend ?? string.Empty);
        }

        table.LeftAligned.Add(8);
        return table;
    }

    public static TextTable RrTable(IReadOnlyList<LabRrPoint> points)
    {
        var table = new TextTable("path", "in flight", "requests/s", "x kernel", "x C", "RTT p50 us", "x kernel", "RTT p99 us", "x kernel", "why not measured");
        foreach (var p in points)
        {
            var kernel = points.FirstOrDefault(o => o.Path == LabPaths.Kernel && o.Parallel == p.Parallel);
            var c = points.FirstOrDefault(o => o.Path == LabPaths.C && o.Parallel == p.Parallel);
            table.Add(p.Path, Format.Count(p.Parallel), Figure(p.RequestsPerSecond, 0),
                Format.Ratio(Ratio(p.RequestsPerSecond, kernel?.RequestsPerSecond)), Format.Ratio(Ratio(p.RequestsPerSecond, c?.RequestsPerSecond)),
                Figure(p.P50Microseconds, 1), Format.Ratio(Ratio(p.P50Microseconds, kernel?.P50Microseconds)),
                Figure(p.P99Microseconds, 1), Format.Ratio(Ratio(p.P99Microseconds, kernel?.P99Microseconds)),
                p.NotMeasured ?? string.Empty);
        }

        table.LeftAligned.Add(9);
        return table;
    }

    private static double? Ratio(double? value, double? baseline) => value is { } v && baseline is { } b && b > 0 ? v / b : null;

    private static string Figure(double? value, int decimals) => value is { } v ? (decimals == 0 ? Format.Count(v) : Format.Fixed(v, decimals)) : "-";
}
