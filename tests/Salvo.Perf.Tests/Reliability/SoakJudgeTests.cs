using Salvo.Perf.Soak;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>The soak's verdict, driven with synthetic samples.</summary>
public sealed class SoakJudgeTests
{
    private const long Mib = 1 << 20;

    [Theory]
    [InlineData(3)]
    [InlineData(9)]
    [InlineData(14.9)]
    public void Judge_RunShorterThanTheMinimum_IsTooShortAndExitsZero(double seconds)
    {
        var baseline = seconds >= SoakJudge.WarmupSeconds ? Sample(SoakJudge.WarmupSeconds, 15.4 * Mib) : null;
        var end = baseline is null ? null : Sample(seconds, 20.2 * Mib);

        var judgement = SoakJudge.Judge(baseline, end);

        Assert.Equal(SoakJudge.TooShort, judgement.Verdict);
        Assert.Equal(0, judgement.ExitCode);
        Assert.Empty(judgement.Trends);
        Assert.Contains("too short to judge memory growth: needs >= 15 s", judgement.Explanation, StringComparison.Ordinal);
    }

    [Fact]
    public void Judge_HeapBackToBaselineAfterFullCollections_IsFlat()
    {
        var judgement = SoakJudge.Judge(Sample(5, 15.4 * Mib), Sample(600, 15.9 * Mib));

        Assert.Equal(SoakJudge.Flat, judgement.Verdict);
        Assert.Equal(0, judgement.ExitCode);
        Assert.Equal(["working set", "managed heap", "handles", "threads"], judgement.Trends.Select(t => t.Resource));
    }

    [Fact]
    public void Judge_HeapGrowingPastTheAllowance_IsGrowingAndExitsThree()
    {
        var judgement = SoakJudge.Judge(Sample(5, 15.4 * Mib), Sample(20, 40 * Mib));

        Assert.Equal(SoakJudge.Growing, judgement.Verdict);
        Assert.Equal(3, judgement.ExitCode);
        var heap = judgement.Trends.Single(t => t.Resource == "managed heap");
        Assert.False(heap.Flat);
        Assert.Equal(SoakJudge.MemorySlackBytes, heap.Allowed);
    }

    [Fact]
    public void Judge_LargeHeap_AllowsTenPercent()
    {
        var judgement = SoakJudge.Judge(Sample(5, 100 * Mib), Sample(60, 109 * Mib));

        Assert.Equal(SoakJudge.Flat, judgement.Verdict);
        Assert.Equal(10 * Mib, judgement.Trends.Single(t => t.Resource == "managed heap").Allowed, 3);
    }

    private static SoakSample Sample(double second, double heap) =>
        new(second, 60 * Mib, (long)heap, 1, 1, 1, 40, 20, new SoakTraffic(0, 0, 0, 0, 0, 0));
}
