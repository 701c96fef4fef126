using Salvo.Perf.Impair;
using Salvo.Perf.Protocol;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>The relay's decisions and its per-direction line, without sockets: time is whatever the test says.</summary>
public sealed class ImpairLineTests
{
    private const long Millisecond = 1_000_000;

    [Fact]
    public void Decider_SameSeed_GivesTheSameDecisions()
    {
        var probabilities = new ImpairProbabilities(0.1, 0.05, 0.05, 0, 5 * Millisecond);
        var a = new ImpairDecider(probabilities, 42);
        var b = new ImpairDecider(probabilities, 42);
        var c = new ImpairDecider(probabilities, 43);

        var first = Enumerable.Range(0, 1000).Select(_ => a.Next()).ToList();
        var second = Enumerable.Range(0, 1000).Select(_ => b.Next()).ToList();
        var other = Enumerable.Range(0, 1000).Select(_ => c.Next()).ToList();

        Assert.Equal(first, second);
        Assert.NotEqual(first, other);
    }

    [Fact]
    public void Decider_ManyDraws_RatesFollowTheProbabilities()
    {
        var decider = new ImpairDecider(new ImpairProbabilities(0.10, 0.05, 0.02, 1 * Millisecond, 3 * Millisecond), 7);
        var decisions = Enumerable.Range(0, 100_000).Select(_ => decider.Next()).ToList();

        // Seeded, so these are fixed numbers; the bounds say the generator is not skewed (binomial sigma ~0.1 %).
        Assert.InRange(decisions.Count(d => d.Drop) / 100_000.0, 0.095, 0.105);
        var kept = decisions.Where(d => !d.Drop).ToList();
        Assert.InRange(kept.Count(d => d.Duplicate) / (double)kept.Count, 0.045, 0.055);
        Assert.InRange(kept.Count(d => d.Hold) / (double)kept.Count, 0.017, 0.023);
        Assert.All(kept, d => Assert.InRange(d.DelayNanoseconds, 1 * Millisecond, 3 * Millisecond));
        Assert.All(decisions.Where(d => d.Drop), d => Assert.False(d.Duplicate || d.Hold));
    }

    [Theory]
    [InlineData(1UL)]
    [InlineData(42UL)]
    [InlineData(20_261_122UL)]
    public void Line_InOrderInput_SequenceTrackerCountsEqualTheLinesCounts(ulong seed)
    {
        var line = new ImpairLine<long>(new ImpairDecider(new ImpairProbabilities(0.05, 0.02, 0.03, 0, 5 * Millisecond), seed), 3, 20 * Millisecond);
        var output = new List<Emission<long>>();
        var tracker = new SequenceTracker();
        const int Count = 20_000;
        var now = 0L;
        for (var sequence = 0L; sequence < Count; sequence++)
        {
            now += 100_000;
            line.Accept(sequence, now, output);
            Feed(tracker, output, now);
            if (sequence % 7 == 0)
            {
                line.Advance(now + 50_000, output);
                Feed(tracker, output, now);
            }
        }

        line.Flush(output);
        Feed(tracker, output, now);
        var report = line.Report("client-to-server");

        Assert.Equal(Count, report.Received);
        Assert.Equal(0, report.Pending);
        Assert.True(report.Dropped > 0 && report.Duplicated > 0 && report.Reordered > 0 && report.Delayed > 0);
        Assert.Equal(report.Dropped, tracker.LostAgainst(Count));
        Assert.Equal(report.Duplicated, tracker.Duplicates);
        Assert.Equal(report.Reordered, tracker.OutOfOrder);
        Assert.Equal(report.Forwarded, tracker.Received);
        Assert.Equal(report.Received - report.Dropped + report.Duplicated, report.Forwarded + report.SendErrors + report.Pending);
    }

    [Fact]
    public void Line_DelayOnly_KeepsTheOrder()
    {
        var line = new ImpairLine<long>(new ImpairDecider(new ImpairProbabilities(0, 0, 0, 0, 5 * Millisecond), 9), 3, 20 * Millisecond);
        var output = new List<Emission<long>>();
        for (var sequence = 0L; sequence < 5000; sequence++)
        {
            line.Accept(sequence, sequence * 10_000, output);
        }

        Assert.True(line.Pending > 0);
        Assert.True(line.NextDueNanoseconds < long.MaxValue);
        line.Advance(long.MaxValue - 1, output);

        Assert.Equal(Enumerable.Range(0, 5000).Select(i => (long)i), output.Select(e => e.Item));
        var report = line.Report("server-to-client");
        Assert.Equal(0, report.Reordered);
        Assert.True(report.Delayed > 4000);
    }

    [Fact]
    public void Line_HeldDatagram_LeavesAfterExactlyGapLaterOnes()
    {
        const int Gap = 4;
        var line = new ImpairLine<long>(new ImpairDecider(new ImpairProbabilities(0, 0, 0.05, 0, 0), 3), Gap, long.MaxValue / 4);
        var output = new List<Emission<long>>();
        for (var sequence = 0L; sequence < 10_000; sequence++)
        {
            line.Accept(sequence, sequence, output);
        }

        var released = output.Select(e => e.Item).ToList();
        var held = 0;
        for (var position = 0; position < released.Count; position++)
        {
            var later = released.Take(position).Count(s => s > released[position]);
            if (later > 0)
            {
                held++;
                Assert.Equal(Gap, later);
            }
        }

        Assert.True(held > 300);
        Assert.Equal(held, line.Report("x").Reordered);
    }

    [Fact]
    public void Line_HeldDatagram_WithoutLaterTraffic_LeavesAtItsDeadline()
    {
        var line = new ImpairLine<long>(new ImpairDecider(new ImpairProbabilities(0, 0, 1, 0, 0), 5), 3, 20 * Millisecond);
        var output = new List<Emission<long>>();

        line.Accept(1, 0, output);
        Assert.Empty(output);
        Assert.Equal(20 * Millisecond, line.NextDueNanoseconds);

        line.Advance((20 * Millisecond) - 1, output);
        Assert.Empty(output);
        line.Advance(20 * Millisecond, output);

        Assert.Equal([new Emission<long>(1, true)], output);
        Assert.Equal(0, line.Report("x").Reordered);
    }

    [Fact]
    public void Line_Duplicate_ComesOutTwiceAndOnlyTheSecondIsTheLastCopy()
    {
        var line = new ImpairLine<long>(new ImpairDecider(new ImpairProbabilities(0, 1, 0, 0, 0), 5), 3, 0);
        var output = new List<Emission<long>>();

        line.Accept(7, 0, output);

        Assert.Equal([new Emission<long>(7, false), new Emission<long>(7, true)], output);
        Assert.Equal(1, line.Report("x").Duplicated);
        Assert.Equal(2, line.Report("x").Forwarded);
    }

    private static void Feed(SequenceTracker tracker, List<Emission<long>> output, long now)
    {
        foreach (var emission in output)
        {
            tracker.Record((ulong)emission.Item, 0, now);
        }

        output.Clear();
    }
}
