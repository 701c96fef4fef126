using System.Globalization;

namespace Salvo.Perf.Soak;

/// <summary>The trend of one resource over the judged window.</summary>
/// <param name="Resource">What was measured.</param>
/// <param name="FromSecond">The window's first sample.</param>
/// <param name="ToSecond">The window's last sample.</param>
/// <param name="First">The value at the window's first sample.</param>
/// <param name="Last">The value at the window's last sample.</param>
/// <param name="SlopePerSecond">The steady slope, per second: the smaller of the Theil-Sen slopes of the window's two halves.</param>
/// <param name="Rise">The steady slope times the window's span: what a growth that kept going through the whole window added.</param>
/// <param name="Allowed">The largest rise still called flat.</param>
/// <param name="Decides">Whether this resource decides the verdict (the working set is shown only).</param>
/// <param name="Flat">Whether the rise stayed within <paramref name="Allowed"/>.</param>
internal sealed record SoakTrend(string Resource, double FromSecond, double ToSecond, double First, double Last, double SlopePerSecond, double Rise, double Allowed, bool Decides, bool Flat);

/// <summary>The verdict of a soak.</summary>
/// <param name="Verdict">"flat", "growing" or "too short".</param>
/// <param name="Explanation">The rule applied, or why the run was too short.</param>
/// <param name="Trends">One per resource; empty when too short.</param>
internal sealed record SoakJudgement(string Verdict, string Explanation, IReadOnlyList<SoakTrend> Trends)
{
    /// <summary>0 for flat or too short to judge, 3 when a resource grew.</summary>
    public int ExitCode => Verdict == SoakJudge.Growing ? 3 : 0;
}

/// <summary>
/// Judges growth from the trend of the samples, not from two of them. Each sample reads the managed heap after a
/// full collection (what a leak grows), descriptors and threads. The first <see cref="WarmupSeconds"/> are left out,
/// and of the rest only the later half is judged: JIT, pools and the thread pool grow to size early, and a process
/// whose growth has stopped is flat there, while a leak rises through the whole run. Growth counts only when it is
/// steady: the window is cut in two, each half gets its Theil-Sen slope, and the smaller of the two times the
/// window's span is the rise, growing when it exceeds the allowance. A leak rises in both halves; a one-off step (a
/// pool that doubled once) lies in one half and leaves the other flat. The working set is
/// shown but does not decide: the runtime and the C allocator keep memory they freed and touch new pages as they
/// go, so it rose from 55 to 64 MiB in a healthy 20 s run whose heap after collection stayed at 13.9 MiB, and a
/// verdict that rested on it was wrong three times.
/// </summary>
internal static class SoakJudge
{
    /// <summary>Seconds of load left out before anything is judged.</summary>
    public const double WarmupSeconds = 5;

    /// <summary>The shortest span after the warm-up worth judging (its later half is the window).</summary>
    public const double MinimumJudgedSeconds = 10;

    /// <summary>Samples the window needs at least, three for each half's slope: a median of fewer pairs is noise.</summary>
    public const int MinimumWindowSamples = 6;

    /// <summary>Relative rise of the heap after collection allowed over the window: 10 %.</summary>
    public const double MemoryTolerance = 0.10;

    /// <summary>
    /// Absolute rise of the heap after collection always allowed over the window: 2 MiB. In a healthy 60 s soak
    /// (Reliability/Data/soak-60s-healthy.json in the tests) it stayed at 13.8-14.0 MiB after the warm-up, one sample
    /// to the next moving by 0.15 MiB at most (buffers in flight at the moment of the collection); a leak of 256
    /// bytes per datagram at the default 2,000/s adds 2 MiB in 4 s.
    /// </summary>
    public const long MemorySlackBytes = 2 << 20;

    /// <summary>Rise in descriptors or threads allowed over the window: the thread pool adds a worker or two, and TCP connections come and go.</summary>
    public const double CountSlack = 4;

    /// <summary>Relative rise in descriptors or threads allowed over the window: 10 %.</summary>
    public const double CountTolerance = 0.10;

    public const string Flat = "flat";
    public const string Growing = "growing";
    public const string TooShort = "too short";

    public const string HeapAfterCollection = "heap after collection";
    public const string Handles = "handles";
    public const string Threads = "threads";
    public const string WorkingSet = "working set";

    /// <summary>The shortest -t that gets a verdict (with samples every second).</summary>
    public static double MinimumRunSeconds => WarmupSeconds + MinimumJudgedSeconds;

    /// <summary>The rule, for the report.</summary>
    public static string Rule { get; } = string.Create(CultureInfo.InvariantCulture,
        $"after {WarmupSeconds} s of warm-up, the steady trend over the later half of the samples (the smaller Theil-Sen slope of its two halves): growing when the managed heap after a full collection " +
        $"rises by more than {MemoryTolerance:P0} or {MemorySlackBytes >> 20} MiB, whichever is larger, or handles or threads by more than {CountTolerance:P0} or {CountSlack}; " +
        $"the working set is shown but does not decide (the runtime and the allocator keep memory they freed)");

    /// <summary>Judges the samples of a run, in time order.</summary>
    public static SoakJudgement Judge(IReadOnlyList<SoakSample> samples)
    {
        var judged = samples.Where(s => s.Second >= WarmupSeconds).ToArray();
        var span = judged.Length == 0 ? 0 : judged[^1].Second - judged[0].Second;
        var window = judged.Length == 0 ? [] : judged.Where(s => s.Second >= judged[0].Second + (span / 2)).ToArray();
        if (span < MinimumJudgedSeconds - 1e-9 || window.Length < MinimumWindowSamples)
        {
            return new SoakJudgement(TooShort, string.Create(CultureInfo.InvariantCulture,
                $"too short to judge growth: needs >= {MinimumRunSeconds} s ({WarmupSeconds} s warm-up, then {MinimumJudgedSeconds} s whose later half holds at least {MinimumWindowSamples} samples)"), []);
        }

        SoakTrend[] trends =
        [
            Trend(HeapAfterCollection, window, s => s.HeapAfterCollectionBytes, v => Math.Max(v * MemoryTolerance, MemorySlackBytes), decides: true),
            Trend(Handles, window, s => s.Handles, v => Math.Max(v * CountTolerance, CountSlack), decides: true),
            Trend(Threads, window, s => s.Threads, v => Math.Max(v * CountTolerance, CountSlack), decides: true),
            Trend(WorkingSet, window, s => s.WorkingSetBytes, v => Math.Max(v * MemoryTolerance, MemorySlackBytes), decides: false),
        ];
        return new SoakJudgement(trends.Where(t => t.Decides).All(t => t.Flat) ? Flat : Growing, Rule, trends);
    }

    private static SoakTrend Trend(string resource, SoakSample[] window, Func<SoakSample, double> read, Func<double, double> allowance, bool decides)
    {
        var points = window.Select(s => (s.Second, read(s))).ToArray();
        var half = points.Length / 2;
        var slope = Math.Min(TheilSen.Slope(points[..half]), TheilSen.Slope(points[half..]));
        var span = window[^1].Second - window[0].Second;
        var rise = slope * span;
        var allowed = allowance(Median(points.Select(p => p.Item2)));
        return new SoakTrend(resource, window[0].Second, window[^1].Second, points[0].Item2, points[^1].Item2, slope, rise, allowed, decides, rise <= allowed);
    }

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToArray();
        return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }
}
