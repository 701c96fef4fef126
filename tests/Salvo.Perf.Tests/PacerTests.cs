using Salvo.Perf.Pacing;

namespace Salvo.Perf.Tests;

public sealed class PacerTests
{
    private const long Millisecond = 1_000_000;

    [Fact]
    public void WaitForBurst_NextBurstMoreThanATickAway_SleepsOnceUntilItIsDue()
    {
        var clock = new FakePacerClock(tickNanoseconds: Millisecond, oversleepNanoseconds: 0);
        var pacer = new Pacer(100, 0, clock);

        Assert.Equal(1, pacer.WaitForBurst(0, long.MaxValue));
        var reads = clock.Reads;

        Assert.Equal(1, pacer.WaitForBurst(1, long.MaxValue));

        Assert.Equal([10 * Millisecond], clock.Sleeps);
        Assert.Equal(2, clock.Reads - reads);
    }

    [Theory]
    [InlineData(4_500, 1_000_000, 5)]
    [InlineData(900, 1_000_000, 1)]
    [InlineData(44_643, 1_060_000, 48)]
    [InlineData(100_000, 60_000, 6)]
    public void BurstSize_IsRateTimesTickRoundedUp(double perSecond, long tick, long burst)
    {
        var pacer = new Pacer(perSecond, 0, new FakePacerClock(tick, 0));

        Assert.Equal(burst, pacer.BurstSize);
        Assert.Equal(burst * 1e9 / perSecond, pacer.BurstIntervalNanoseconds, 6);
    }

    [Theory]
    [InlineData(900, 0)]
    [InlineData(4_500, 60_000)]
    [InlineData(44_643, 300_000)]
    [InlineData(446_429, 90_000)]
    public void OverOneSecond_AchievedRateMatchesAskedRate_WithOneSleepPerBurst(double perSecond, long oversleep)
    {
        var clock = new FakePacerClock(1_060_000, oversleep);
        var pacer = new Pacer(perSecond, 0, clock);
        const long End = 1_000 * Millisecond;
        long sent = 0;
        var bursts = 0;
        for (var due = pacer.WaitForBurst(sent, End); due > 0; due = pacer.WaitForBurst(sent, End))
        {
            Assert.True(due <= pacer.BurstSize * 2, $"burst of {due} after a late wake-up of {oversleep} ns");
            sent += due;
            bursts++;
        }

        Assert.InRange(sent, perSecond - pacer.BurstSize, perSecond + pacer.BurstSize);
        Assert.InRange(clock.Sleeps.Count, bursts - 1, bursts + 1);
        Assert.All(clock.Sleeps, s => Assert.True(s > 0));
    }

    [Fact]
    public void DueAt_IsTheStartOfTheDatagramsBurst()
    {
        var pacer = new Pacer(5_000, 1_000, new FakePacerClock(Millisecond, 0));

        Assert.Equal(5, pacer.BurstSize);
        Assert.Equal(1_000, pacer.DueAt(0));
        Assert.Equal(1_000, pacer.DueAt(4));
        Assert.Equal(1_000 + Millisecond, pacer.DueAt(5));
    }

    [Fact]
    public void WaitForBurst_LowRate_SleepsAtMostTheCapAtATime()
    {
        var clock = new FakePacerClock(Millisecond, 0);
        var pacer = new Pacer(1, 0, clock);

        Assert.Equal(1, pacer.WaitForBurst(0, long.MaxValue));
        Assert.Equal(1, pacer.WaitForBurst(1, long.MaxValue));

        Assert.Equal(1_000 * Millisecond / Pacer.MaxSleepNanoseconds, clock.Sleeps.Count);
        Assert.All(clock.Sleeps, s => Assert.Equal(Pacer.MaxSleepNanoseconds, s));
    }

    [Fact]
    public void WaitForBurst_EndComesFirst_ReturnsZero()
    {
        var clock = new FakePacerClock(Millisecond, 0);
        var pacer = new Pacer(10, 0, clock);

        Assert.Equal(1, pacer.WaitForBurst(0, 30 * Millisecond));
        Assert.Equal(0, pacer.WaitForBurst(1, 30 * Millisecond));
        Assert.Equal(30 * Millisecond, clock.Now);
    }

    /// <summary>A clock that only moves when slept on; each sleep ends <c>oversleep</c> late.</summary>
    private sealed class FakePacerClock(long tickNanoseconds, long oversleepNanoseconds) : IPacerClock
    {
        public long TickNanoseconds => tickNanoseconds;

        public long Now { get; private set; }

        public int Reads { get; private set; }

        public List<long> Sleeps { get; } = [];

        public long NowNanoseconds()
        {
            Reads++;
            return Now;
        }

        public void Sleep(long nanoseconds)
        {
            Sleeps.Add(nanoseconds);
            Now += nanoseconds + oversleepNanoseconds;
        }
    }
}
