using System.Diagnostics;

namespace Salvo.Perf.Protocol;

/// <summary>Nanoseconds on the monotonic clock Stopwatch reads (CLOCK_MONOTONIC on Linux, shared by processes).</summary>
internal static class MonotonicClock
{
    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    /// <summary>Now, in nanoseconds.</summary>
    public static long NowNanoseconds() => ToNanoseconds(Stopwatch.GetTimestamp());

    /// <summary>Converts a Stopwatch timestamp.</summary>
    public static long ToNanoseconds(long timestamp) =>
        Stopwatch.Frequency == 1_000_000_000 ? timestamp : (long)(timestamp * NanosecondsPerTick);
}
