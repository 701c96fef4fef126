using System.Globalization;

namespace Salvo.Perf.Soak;

/// <summary>Whether one resource stayed flat: the end sample against the baseline, both after a full collection.</summary>
/// <param name="Resource">What was compared.</param>
/// <param name="Baseline">The value at the baseline (after warm-up).</param>
/// <param name="End">The value at the end.</param>
/// <param name="Allowed">The largest rise still called flat.</param>
/// <param name="Flat">Whether the rise stayed within <paramref name="Allowed"/>.</param>
internal sealed record SoakTrend(string Resource, double Baseline, double End, double Allowed, bool Flat);

/// <summary>The verdict of a soak.</summary>
/// <param name="Verdict">"flat", "growing" or "too short".</param>
/// <param name="Explanation">The rule applied, or why the run was too short.</param>
/// <param name="Trends">One per resource; empty when too short.</param>
internal sealed record SoakJudgement(string Verdict, string Explanation, IReadOnlyList<SoakTrend> Trends)
{
    /// <summary>0 for flat or too short to judge, 3 when memory grew.</summary>
    public int ExitCode => Verdict == SoakJudge.Growing ? 3 : 0;
}

/// <summary>
/// Judges memory growth from two samples taken after full collections: the baseline, once the warm-up is
/// over, and the end. Without the collections a short run compares garbage not yet collected (a 3 s run
/// with one gen0 collection read 15.4 then 20.2 MiB of heap and was called growing), and without the
/// warm-up it compares JIT, buffer pools and the thread pool growing to size.
/// </summary>
internal static class SoakJudge
{
    /// <summary>Seconds of load before the baseline: JIT, pools and the thread pool settle within this.</summary>
    public const double WarmupSeconds = 5;

    /// <summary>The shortest span between baseline and end worth judging: a leak of 1 KiB per datagram at the default 2,000/s shows as 20 MiB in it.</summary>
    public const double MinimumJudgedSeconds = 10;

    /// <summary>Relative rise of memory allowed: 10 %.</summary>
    public const double MemoryTolerance = 0.10;

    /// <summary>Absolute rise of memory always allowed (allocator and JIT noise on a small heap): 4 MiB.</summary>
    public const long MemorySlackBytes = 4 << 20;

    /// <summary>Rise in handles or threads allowed (the thread pool may add a worker or two).</summary>
    public const double CountSlack = 4;

    public const string Flat = "flat";
    public const string Growing = "growing";
    public const string TooShort = "too short";

    /// <summary>The shortest -t that gets a verdict.</summary>
    public static double MinimumRunSeconds => WarmupSeconds + MinimumJudgedSeconds;

    /// <summary>The rule, for the report.</summary>
    public static string Rule { get; } = string.Create(CultureInfo.InvariantCulture,
        $"after {WarmupSeconds} s of warm-up and a full collection (baseline), and another full collection at the end: memory flat when it rose by at most {MemoryTolerance:P0} or {MemorySlackBytes >> 20} MiB, whichever is larger (handles and threads are shown against a rise of {CountSlack} but do not decide)");

    /// <summary>Judges <paramref name="end"/> against <paramref name="baseline"/>; too short when either is missing or they lie under <see cref="MinimumJudgedSeconds"/> apart.</summary>
    public static SoakJudgement Judge(SoakSample? baseline, SoakSample? end)
    {
        if (baseline is null || end is null || end.Second - baseline.Second < MinimumJudgedSeconds)
        {
            return new SoakJudgement(TooShort, string.Create(CultureInfo.InvariantCulture,
                $"too short to judge memory growth: needs >= {MinimumRunSeconds} s ({WarmupSeconds} s warm-up, then {MinimumJudgedSeconds} s between two full collections)"), []);
        }

        SoakTrend[] trends =
        [
            Memory("working set", baseline.WorkingSetBytes, end.WorkingSetBytes),
            Memory("managed heap", baseline.ManagedHeapBytes, end.ManagedHeapBytes),
            Count("handles", baseline.Handles, end.Handles),
            Count("threads", baseline.Threads, end.Threads),
        ];
        return new SoakJudgement(trends.Take(2).All(t => t.Flat) ? Flat : Growing, Rule, trends);
    }

    private static SoakTrend Memory(string resource, double baseline, double end)
    {
        var allowed = Math.Max(baseline * MemoryTolerance, MemorySlackBytes);
        return new SoakTrend(resource, baseline, end, allowed, end - baseline <= allowed);
    }

    private static SoakTrend Count(string resource, double baseline, double end) => new(resource, baseline, end, CountSlack, end - baseline <= CountSlack);
}
