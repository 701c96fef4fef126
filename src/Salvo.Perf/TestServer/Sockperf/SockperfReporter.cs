using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>
/// <c>salvo server</c>'s sockperf lines: one per interval in which sockperf traffic arrived (an idle
/// server stays quiet), and the totals when the server stops, in the terms sockperf's own server uses
/// ("messages received and handled").
/// </summary>
internal sealed class SockperfReporter : IDisposable
{
    private readonly CliConsole _console;
    private readonly SockperfService _service;
    private readonly IntervalTicker _ticker;
    private SockperfTotals _previous;

    public SockperfReporter(CliConsole console, SockperfService service, double interval)
    {
        _console = console;
        _service = service;
        _ticker = new IntervalTicker(interval, Report);
    }

    /// <summary>One interval's line.</summary>
    public static string IntervalLine(double start, double end, SockperfTotals delta, int openConnections) =>
        $"sockperf {Format.Fixed(start, 2)}-{Format.Fixed(end, 2)} s: {Format.Count(delta.Messages / (end - start))} messages/s, " +
        $"{Format.Count(delta.Replies / (end - start))} replies/s, {Format.Count(delta.Malformed)} malformed, " +
        $"{Format.Count(openConnections)} TCP connection(s) open";

    /// <summary>The line printed when the server stops.</summary>
    public static string TotalLine(SockperfTotals totals, long connections, long refused, long closedIdle) =>
        $"sockperf total: {Format.Count(totals.Messages)} messages received and handled, {Format.Count(totals.Replies)} replies, " +
        $"{Format.Count(totals.Warmups)} warm-up, {Format.Count(totals.Ignored)} ignored (no client flag), " +
        $"{Format.Count(totals.Malformed)} malformed, {Format.Count(connections)} TCP connection(s), " +
        $"{Format.Count(refused)} refused over the cap, {Format.Count(closedIdle)} closed idle";

    public void Dispose()
    {
        _ticker.Dispose();
        var totals = _service.Snapshot();
        if (totals != default || _service.Connections > 0 || _service.Refused > 0)
        {
            _console.Line(TotalLine(totals, _service.Connections, _service.Refused, _service.ClosedIdle));
        }
    }

    private void Report(double start, double end)
    {
        var now = _service.Snapshot();
        var delta = now - _previous;
        _previous = now;
        if (delta != default)
        {
            _console.Line(IntervalLine(start, end, delta, _service.OpenConnections));
        }
    }
}
