using Salvo.Perf.Soak;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>
/// The soak's verdict on sample series shaped like real runs: a healthy process (heap and threads rising while it
/// warms up, then flat; a working set that keeps moving) and one that leaks on purpose (steady managed growth, or a
/// descriptor per connection), at the lengths users run: 20 s, 60 s and 600 s.
/// </summary>
public sealed class SoakJudgeTests
{
    private const double Mib = 1 << 20;

    [Theory]
    [InlineData(3)]
    [InlineData(9)]
    [InlineData(14.9)]
    public void Judge_RunShorterThanTheMinimum_IsTooShortAndExitsZero(double seconds)
    {
        var judgement = SoakJudge.Judge(SoakSeries.Healthy(seconds, seed: 1));

        Assert.Equal(SoakJudge.TooShort, judgement.Verdict);
        Assert.Equal(0, judgement.ExitCode);
        Assert.Empty(judgement.Trends);
        Assert.Contains("too short to judge growth: needs >= 15 s", judgement.Explanation, StringComparison.Ordinal);
    }

    [Fact]
    public void Judge_SamplesTooSparseForATrend_IsTooShort()
    {
        var judgement = SoakJudge.Judge(SoakSeries.Healthy(20, seed: 1, interval: 5));

        Assert.Equal(SoakJudge.TooShort, judgement.Verdict);
    }

    /// <summary>
    /// The run that was called "memory growing" and exited 3: working set 55 -> 64 MiB and still rising at the end,
    /// heap after collection, handles and threads flat after the warm-up.
    /// </summary>
    [Theory]
    [InlineData(20)]
    [InlineData(60)]
    [InlineData(600)]
    public void Judge_HealthyRunWithARisingWorkingSet_IsFlatAndExitsZero(double seconds)
    {
        for (var seed = 1; seed <= 20; seed++)
        {
            var judgement = SoakJudge.Judge(SoakSeries.Healthy(seconds, seed));

            Assert.True(judgement.Verdict == SoakJudge.Flat, $"seed {seed}: {Describe(judgement)}");
            Assert.Equal(0, judgement.ExitCode);
            var workingSet = judgement.Trends.Single(t => t.Resource == SoakJudge.WorkingSet);
            Assert.False(workingSet.Decides);
        }
    }

    /// <summary>Each length catches a leak of at most twice the rate its window can tell from noise (2 MiB over the later half).</summary>
    [Theory]
    [InlineData(20, 512 * 1024)]
    [InlineData(60, 160 * 1024)]
    [InlineData(600, 16 * 1024)]
    public void Judge_SteadyManagedGrowth_IsGrowingAndExitsThree(double seconds, double leakBytesPerSecond)
    {
        for (var seed = 1; seed <= 20; seed++)
        {
            var judgement = SoakJudge.Judge(SoakSeries.Healthy(seconds, seed, heapLeakPerSecond: leakBytesPerSecond));

            Assert.True(judgement.Verdict == SoakJudge.Growing, $"seed {seed}: {Describe(judgement)}");
            Assert.Equal(3, judgement.ExitCode);
            Assert.False(judgement.Trends.Single(t => t.Resource == SoakJudge.HeapAfterCollection).Flat);
            Assert.True(judgement.Trends.Single(t => t.Resource == SoakJudge.Handles).Flat);
        }
    }

    [Theory]
    [InlineData(20)]
    [InlineData(600)]
    public void Judge_ADescriptorLeakedPerConnection_IsGrowing(double seconds)
    {
        var judgement = SoakJudge.Judge(SoakSeries.Healthy(seconds, seed: 3, handleLeakPerSecond: 5));

        Assert.Equal(SoakJudge.Growing, judgement.Verdict);
        Assert.False(judgement.Trends.Single(t => t.Resource == SoakJudge.Handles).Flat);
        Assert.True(judgement.Trends.Single(t => t.Resource == SoakJudge.HeapAfterCollection).Flat);
    }

    /// <summary>A pool that doubles once in the judged window (303-600 s) is a step, not a trend.</summary>
    [Theory]
    [InlineData(400)]
    [InlineData(520)]
    public void Judge_OneStepInTheHeap_IsFlat(double second)
    {
        var samples = SoakSeries.Healthy(600, seed: 4).Select(s => s.Second < second ? s : s with { HeapAfterCollectionBytes = s.HeapAfterCollectionBytes + (long)(3 * Mib) }).ToArray();

        var judgement = SoakJudge.Judge(samples);

        Assert.True(judgement.Verdict == SoakJudge.Flat, Describe(judgement));
    }

    /// <summary>A warm-up longer than the 5 s the judge leaves out (the heap still filling at 10 s) ends before the judged window.</summary>
    [Fact]
    public void Judge_SlowWarmUp_IsFlat()
    {
        var judgement = SoakJudge.Judge(SoakSeries.Healthy(20, seed: 5, warmupSeconds: 3.5));

        Assert.True(judgement.Verdict == SoakJudge.Flat, Describe(judgement));
    }

    [Fact]
    public void Judge_RecordedHealthyRun_IsFlat()
    {
        var judgement = SoakJudge.Judge(SoakSeries.Recorded("soak-60s-healthy.json"));

        Assert.True(judgement.Verdict == SoakJudge.Flat, Describe(judgement));
    }

    [Fact]
    public void Judge_RecordedHealthyRunWithALeakAdded_IsGrowing()
    {
        var recorded = SoakSeries.Recorded("soak-60s-healthy.json");
        var leaking = recorded.Select(s => s with { HeapAfterCollectionBytes = s.HeapAfterCollectionBytes + (long)(s.Second * 160 * 1024) }).ToArray();

        var judgement = SoakJudge.Judge(leaking);

        Assert.True(judgement.Verdict == SoakJudge.Growing, Describe(judgement));
    }

    private static string Describe(SoakJudgement judgement) =>
        $"{judgement.Verdict}: " + string.Join("; ", judgement.Trends.Select(t =>
            $"{t.Resource} {t.FromSecond:F0}-{t.ToSecond:F0} s rise {t.Rise:F0} allowed {t.Allowed:F0}{(t.Flat ? string.Empty : " NOT FLAT")}"));
}
