using Salvo.Perf.Measurement;

namespace Salvo.Perf.Tests;

public sealed class LatencyHistogramTests
{
    [Fact]
    public void Percentiles_OneToThousandMicroseconds_MatchWithinHistogramPrecision()
    {
        var histogram = new LatencyHistogram();
        for (var us = 1; us <= 1000; us++)
        {
            histogram.RecordNanoseconds(us * 1000L);
        }

        var summary = histogram.Summarize();

        Assert.Equal(1000, summary.Count);
        Assert.InRange(summary.P50Microseconds, 499.5, 500.5);
        Assert.InRange(summary.P90Microseconds, 899.1, 900.9);
        Assert.InRange(summary.P99Microseconds, 989.0, 991.0);
        Assert.InRange(summary.MaxMicroseconds, 999.0, 1001.0);
        Assert.InRange(summary.MeanMicroseconds, 500.0, 501.0);
    }

    [Fact]
    public void Add_MergesTwoHistograms()
    {
        var first = new LatencyHistogram();
        var second = new LatencyHistogram();
        first.RecordNanoseconds(10_000);
        second.RecordNanoseconds(2_000_000);

        first.Add(second);

        Assert.Equal(2, first.Count);
        Assert.InRange(first.Summarize().MaxMicroseconds, 1998, 2002);
    }

    [Fact]
    public void RecordNanoseconds_OverTheCeiling_IsClampedAndCounted()
    {
        var histogram = new LatencyHistogram();

        histogram.RecordNanoseconds(LatencyHistogram.HighestNanoseconds * 2);
        histogram.RecordNanoseconds(-5);

        Assert.Equal(2, histogram.Count);
        Assert.Equal(1, histogram.Clamped);
    }

    [Fact]
    public void Empty_SummarizesToZero()
    {
        var summary = new LatencyHistogram().Summarize();

        Assert.Equal(0, summary.Count);
        Assert.Equal(0, summary.P99Microseconds);
        Assert.Equal(0, summary.MaxMicroseconds);
    }

    [Fact]
    public void Spread_EvenCount_MedianIsMeanOfMiddlePair()
    {
        var spread = Spread.Of([4, 1, 3, 2]);

        Assert.Equal(2.5, spread.Median);
        Assert.Equal(1, spread.Min);
        Assert.Equal(4, spread.Max);
        Assert.Equal(120, spread.Percent, 6);
    }
}
