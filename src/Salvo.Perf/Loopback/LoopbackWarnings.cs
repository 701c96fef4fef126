using System.Globalization;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Loopback;

/// <summary>A baseline row whose rate fell apart, so ratios against it at its size say more about it than about the others.</summary>
/// <param name="Baseline">The baseline method: socket or naive.</param>
/// <param name="PayloadBytes">The size at which it collapsed.</param>
/// <param name="Reason">What gives it away, in words.</param>
internal sealed record BaselineCollapse(string Baseline, int PayloadBytes, string Reason);

/// <summary>
/// When a loopback report's figures are not to be trusted, and why: repetitions that disagree, a baseline that
/// collapsed, other work on the host that came or went during the run.
/// </summary>
internal static class LoopbackWarnings
{
    /// <summary>A spread above this (percent of the median) makes a median of a few repetitions meaningless.</summary>
    public const double WideSpreadPercent = 25;

    /// <summary>
    /// A baseline losing this many percentage points more than the other methods' median at the same size has collapsed:
    /// the others saw the same host and the same unpaced sender, so such a gap is the baseline's own trouble.
    /// </summary>
    public const double CollapsedLossGapPoints = 25;

    // Each system call carries one datagram on both baselines, so a larger datagram carries more bytes per call: bytes/s
    // at a larger size below half of those at a smaller one is a collapse, not a property of the size (half leaves room
    // for noise between neighbouring sizes such as 65,000 and 65,507).
    private const double CollapsedByteRateFraction = 0.5;

    // The 1-minute load average decays with a 60-second time constant (kernel/sched/loadavg.c: EXP_1).
    private const double LoadAverageSeconds = 60;

    // The sender and the receiver thread of every point other than server-wN.
    private const int ThreadsPerPoint = 2;

    /// <summary>Every baseline row (socket, naive) that lost far more than the other methods at its size, or moved far fewer bytes than at a smaller size.</summary>
    public static IReadOnlyList<BaselineCollapse> CollapsedBaselines(IReadOnlyList<LoopbackResult> results)
    {
        var collapses = new List<BaselineCollapse>();
        foreach (var baseline in results.Where(r => r.Method is LoopbackMethods.Baseline or LoopbackMethods.NaiveBaseline))
        {
            var others = results.Where(r => r.PayloadBytes == baseline.PayloadBytes && r.Method != baseline.Method).Select(r => r.LossPercent).ToList();
            var othersLoss = Spread.Of(others).Median;
            var smaller = results.Where(r => r.Method == baseline.Method && r.PayloadBytes < baseline.PayloadBytes).MaxBy(r => r.GbitsPerSecond);
            if (others.Count > 0 && baseline.LossPercent - othersLoss >= CollapsedLossGapPoints)
            {
                collapses.Add(new(baseline.Method, baseline.PayloadBytes,
                    $"it lost {Format.Fixed(baseline.LossPercent, 1)} % against {Format.Fixed(othersLoss, 1)} % for the other methods (median)"));
            }
            else if (smaller is not null && baseline.GbitsPerSecond < CollapsedByteRateFraction * smaller.GbitsPerSecond)
            {
                collapses.Add(new(baseline.Method, baseline.PayloadBytes,
                    $"it moved {Format.Fixed(baseline.GbitsPerSecond, 2)} Gbit/s, under half the {Format.Fixed(smaller.GbitsPerSecond, 2)} Gbit/s it moved " +
                    $"at {Format.Count(smaller.PayloadBytes)} B, where each call carried fewer bytes"));
            }
        }

        return collapses;
    }

    /// <summary>
    /// Whether the 1-minute load average at the end is more than one task (and more than a quarter) away from what the
    /// start predicts once this run's own busy threads are added: L(T) = L(0) + busy x (1 - e^(-T/60)) for steady other load.
    /// </summary>
    public static bool LoadAverageMoved(LoopbackReport report) => LoadAverageDrift(report) is not null;

    /// <summary>The warning lines of <paramref name="report"/>, empty when every figure can be taken as it is.</summary>
    public static IReadOnlyList<string> For(LoopbackReport report)
    {
        var lines = new List<string>();
        var wide = report.Results.Where(r => r.WideSpread).ToList();
        if (wide.Count > 0)
        {
            lines.Add($"warning: spread over {Format.Fixed(WideSpreadPercent, 0)} % (medians of so few repetitions are not to be trusted): " +
                string.Join(", ", wide.Select(r => $"{r.Method} {Format.Count(r.PayloadBytes)} B ({Format.Percent(r.SpreadPercent!.Value)})")) +
                "; rerun with a larger --repeat or on a quieter host.");
        }

        foreach (var collapse in CollapsedBaselines(report.Results))
        {
            lines.Add($"warning: {collapse.Baseline} at {Format.Count(collapse.PayloadBytes)} B collapsed: {collapse.Reason}; " +
                $"the 'vs {collapse.Baseline}' ratios at {Format.Count(collapse.PayloadBytes)} B overstate the others' lead.");
        }

        if (LoadAverageDrift(report) is { } drift)
        {
            lines.Add($"warning: the load average moved during the run (1-minute {Fixed2(drift.Start)} at the start, {Fixed2(drift.End)} at the end, " +
                $"where the start and this run's own threads predict about {Fixed2(drift.Expected)}): other work came or went, so the medians are not to be trusted.");
        }

        return lines;
    }

    private static (double Start, double End, double Expected)? LoadAverageDrift(LoopbackReport report)
    {
        if (OneMinute(report.Environment.LoadAverage) is not { } start || OneMinute(report.LoadAverageAtEnd) is not { } end || report.Samples.Count == 0)
        {
            return null;
        }

        var seconds = report.Samples.Count * (report.Settings.WarmupSeconds + report.Settings.DurationSeconds);
        var busy = report.Samples.Average(s => LoopbackMethods.Find(s.Method) is ServerMethod server ? server.Workers + server.SenderThreads : ThreadsPerPoint);
        var expected = start + (busy * (1 - Math.Exp(-seconds / LoadAverageSeconds)));
        var off = Math.Abs(end - expected);
        return off > 1 && off > 0.25 * expected ? (start, end, expected) : null;
    }

    private static double? OneMinute(string? loadAverage) =>
        loadAverage?.Split(' ', StringSplitOptions.RemoveEmptyEntries) is [var first, ..] && double.TryParse(first, NumberStyles.Float, CultureInfo.InvariantCulture, out var value)
            ? value
            : null;

    private static string Fixed2(double value) => Format.Fixed(value, 2);
}
