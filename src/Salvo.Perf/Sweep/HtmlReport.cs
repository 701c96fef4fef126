using System.Net;
using System.Text;
using Salvo.Perf.Loopback;
using Salvo.Perf.Reporting;
using Salvo.Perf.Rr;

namespace Salvo.Perf.Sweep;

/// <summary>Writes a sweep as one self-contained HTML page: inline CSS, inline SVG charts, the tables, and how it was run.</summary>
internal static class HtmlReport
{
    public static string Render(SweepReport report)
    {
        var html = new StringBuilder();
        html.Append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>salvo sweep</title><style>")
            .Append("body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}table{border-collapse:collapse;margin:1em 0}")
            .Append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}")
            .Append("code{background:#f4f4f4;padding:2px 4px}</style></head><body>")
            .Append("<h1>salvo sweep</h1>")
            .Append("<p>").Append(Encode(report.Environment.Describe())).Append("<br>Run at ").Append(Encode(report.Environment.TimestampUtc))
            .Append("<br>Command: <code>").Append(Encode(report.CommandLine)).Append("</code></p>");

        if (report.Loopback is { } loopback && loopback.Results.Count > 0)
        {
            var sizes = loopback.Settings.PayloadBytes;
            var labels = sizes.Select(s => s.ToString(System.Globalization.CultureInfo.InvariantCulture)).ToArray();
            var rate = new SvgLineChart("Datagrams per second by payload size (loopback)", "datagrams/s", labels);
            var bits = new SvgLineChart("Payload Gbit/s by payload size (loopback)", "Gbit/s", labels);
            foreach (var method in loopback.Settings.Methods)
            {
                rate.Add(method, sizes.Select(s => Find(loopback, method, s)?.DatagramsPerSecond).ToArray());
                bits.Add(method, sizes.Select(s => Find(loopback, method, s)?.GbitsPerSecond).ToArray());
            }

            html.Append("<h2>Loopback throughput</h2>")
                .Append("<p>").Append(loopback.Settings.Repetitions).Append(" repetition(s), ")
                .Append(loopback.Settings.DurationSeconds).Append(" s per point; ")
                .Append(loopback.Settings.Pinned ? $"sender on CPU {loopback.Settings.SenderCpu}, receiver on CPU {loopback.Settings.ReceiverCpu}" : "not pinned")
                .Append(".</p>")
                .Append(rate.Render()).Append(bits.Render())
                .Append(Table(LoopbackCommand.ToTable(loopback.Results)))
                .Append("<p>").AppendJoin("<br>", LoopbackCommand.Footnotes(loopback).Select(line => Encode(line.Trim()))).Append("</p>");
        }

        if (report.Rr.Count > 0)
        {
            var labels = report.Rr.Select(r => r.Parallel.ToString(System.Globalization.CultureInfo.InvariantCulture)).ToArray();
            var latency = new SvgLineChart("Request/response round-trip latency (RTT) by requests in flight", "microseconds", labels);
            latency.Add("p50", report.Rr.Select(r => (double?)r.Latency.P50Microseconds).ToArray());
            latency.Add("p90", report.Rr.Select(r => (double?)r.Latency.P90Microseconds).ToArray());
            latency.Add("p99", report.Rr.Select(r => (double?)r.Latency.P99Microseconds).ToArray());
            latency.Add("p99.9", report.Rr.Select(r => (double?)r.Latency.P999Microseconds).ToArray());
            var rps = new SvgLineChart("Requests per second by requests in flight", "requests/s", labels);
            rps.Add("requests/s", report.Rr.Select(r => (double?)r.RequestsPerSecond).ToArray());
            html.Append("<h2>Request/response</h2>")
                .Append("<p>").Append(report.Rr[0].RequestBytes).Append("-byte requests, ").Append(report.Rr[0].ResponseBytes)
                .Append("-byte responses, in-process responder on 127.0.0.1.</p>")
                .Append(latency.Render()).Append(rps.Render())
                .Append(Table(RrCommand.ToTable(report.Rr)));
        }

        html.Append("<p>The same data is in sweep.json next to this file.</p></body></html>\n");
        return html.ToString();
    }

    private static LoopbackResult? Find(LoopbackReport report, string method, int size) =>
        report.Results.FirstOrDefault(r => r.Method == method && r.PayloadBytes == size);

    /// <summary>A <see cref="TextTable"/> as an HTML table (via its Markdown rows).</summary>
    private static string Table(TextTable table)
    {
        var lines = table.ToMarkdown().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var html = new StringBuilder("<table>");
        for (var i = 0; i < lines.Length; i++)
        {
            if (i == 1)
            {
                continue; // the Markdown alignment row
            }

            var cells = lines[i].Trim().Trim('|').Split('|').Select(c => Encode(c.Trim()));
            var tag = i == 0 ? "th" : "td";
            html.Append("<tr>").AppendJoin(string.Empty, cells.Select(c => $"<{tag}>{c}</{tag}>")).Append("</tr>");
        }

        return html.Append("</table>").ToString();
    }

    private static string Encode(string text) => WebUtility.HtmlEncode(text);
}
