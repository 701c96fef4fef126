using HdrHistogram;

namespace Salvo.Perf.Measurement;

/// <summary>
/// Latencies in nanoseconds in an HdrHistogram (3 significant digits: every percentile within 0.1 %),
/// reported in microseconds. One per recording thread; merge them with <see cref="Add"/>.
/// </summary>
internal sealed class LatencyHistogram
{
    /// <summary>The largest latency kept: 60 s; longer ones are recorded as 60 s and counted in <see cref="Clamped"/>.</summary>
    public const long HighestNanoseconds = 60_000_000_000;

    private readonly LongHistogram _histogram = new(HighestNanoseconds, 3);

    /// <summary>Latencies recorded.</summary>
    public long Count => _histogram.TotalCount;

    /// <summary>Latencies over <see cref="HighestNanoseconds"/>, recorded at that value.</summary>
    public long Clamped { get; private set; }

    /// <summary>Records one latency; negative values (clock steps) count as 0.</summary>
    public void RecordNanoseconds(long nanoseconds)
    {
        if (nanoseconds > HighestNanoseconds)
        {
            Clamped++;
            nanoseconds = HighestNanoseconds;
        }

        _histogram.RecordValue(Math.Max(0, nanoseconds));
    }

    /// <summary>Adds another histogram's latencies to this one.</summary>
    public void Add(LatencyHistogram other)
    {
        ArgumentNullException.ThrowIfNull(other);
        _histogram.Add(other._histogram);
        Clamped += other.Clamped;
    }

    /// <summary>The latency at <paramref name="percentile"/> (0-100) in microseconds; 0 when empty.</summary>
    public double PercentileMicroseconds(double percentile) =>
        Count == 0 ? 0 : _histogram.GetValueAtPercentile(percentile) / 1000.0;

    /// <summary>The usual percentiles.</summary>
    public LatencySummary Summarize() => new(
        Count,
        Count == 0 ? 0 : _histogram.GetMean() / 1000.0,
        PercentileMicroseconds(50),
        PercentileMicroseconds(90),
        PercentileMicroseconds(99),
        PercentileMicroseconds(99.9),
        PercentileMicroseconds(99.99),
        Count == 0 ? 0 : _histogram.GetMaxValue() / 1000.0);
}

/// <summary>Latency percentiles in microseconds.</summary>
/// <param name="Count">Latencies recorded.</param>
/// <param name="MeanMicroseconds">The mean.</param>
/// <param name="P50Microseconds">The median.</param>
/// <param name="P90Microseconds">The 90th percentile.</param>
/// <param name="P99Microseconds">The 99th percentile.</param>
/// <param name="P999Microseconds">The 99.9th percentile.</param>
/// <param name="P9999Microseconds">The 99.99th percentile.</param>
/// <param name="MaxMicroseconds">The largest latency.</param>
internal sealed record LatencySummary(
    long Count,
    double MeanMicroseconds,
    double P50Microseconds,
    double P90Microseconds,
    double P99Microseconds,
    double P999Microseconds,
    double P9999Microseconds,
    double MaxMicroseconds)
{
    /// <summary>Every figure halved: a one-way estimate from round trips, as sockperf reports its latency.</summary>
    public LatencySummary Halved() => new(Count, MeanMicroseconds / 2, P50Microseconds / 2, P90Microseconds / 2, P99Microseconds / 2,
        P999Microseconds / 2, P9999Microseconds / 2, MaxMicroseconds / 2);
}
