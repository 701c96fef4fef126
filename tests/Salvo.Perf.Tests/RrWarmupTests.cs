using System.Text.Json;
using Salvo.Perf.Rr;

namespace Salvo.Perf.Tests;

/// <summary>rr's warm-up that lasts until the JIT has settled, and the measured window it opens.</summary>
public sealed class RrWarmupTests
{
    private const long Second = 1_000_000_000;

    [Fact]
    public void JitIdleFromTheStart_WarmupEndsAtTheMinimum()
    {
        var warmup = new JitSettledWarmup(0, Second / 2, Second / 4, 10 * Second);

        Assert.False(warmup.IsOver(0, 100));
        Assert.False(warmup.IsOver(Second / 4, 100));
        Assert.False(warmup.IsOver((Second / 2) - 1, 100));
        Assert.True(warmup.IsOver(Second / 2, 100));
        Assert.False(warmup.EndedBusy);
    }

    [Fact]
    public void JitStillCompilingAfterTheMinimum_WarmupWaitsForTheIdleSpan()
    {
        var warmup = new JitSettledWarmup(0, Second / 2, Second / 2, 10 * Second);

        Assert.False(warmup.IsOver(0, 10));
        Assert.False(warmup.IsOver(6 * Second / 10, 20));
        Assert.False(warmup.IsOver(Second, 20));
        Assert.False(warmup.IsOver(Second + (Second / 20), 21));
        Assert.False(warmup.IsOver((3 * Second / 2) + 1, 21));
        Assert.True(warmup.IsOver((Second + (Second / 20)) + (Second / 2), 21));
        Assert.False(warmup.EndedBusy);
    }

    [Fact]
    public void JitNeverIdle_WarmupEndsAtTheMostAndSaysTheJitWasBusy()
    {
        var warmup = new JitSettledWarmup(Second, Second / 2, Second / 2, 3 * Second);
        long count = 0;
        var now = Second;
        while (!warmup.IsOver(now, ++count))
        {
            now += Second / 20;
            Assert.True(now <= 5 * Second, "the warm-up never ended");
        }

        Assert.Equal(4 * Second, now);
        Assert.True(warmup.EndedBusy);
    }

    [Fact]
    public void PlanOpenedLater_MeasuresNothingAndNeverEndsUntilOpened()
    {
        var plan = RrPlan.OpenedLater(Second);

        Assert.False(plan.IsMeasuring(0));
        Assert.False(plan.IsMeasuring(long.MaxValue - 1));
        Assert.False(plan.HasEnded(long.MaxValue - 1, Second));

        plan.Open(5 * Second, 2 * Second);

        Assert.False(plan.IsMeasuring((5 * Second) - 1));
        Assert.True(plan.IsMeasuring(5 * Second));
        Assert.True(plan.IsMeasuring((7 * Second) - 1));
        Assert.False(plan.IsMeasuring(7 * Second));
        Assert.True(plan.HasEnded(7 * Second));
        Assert.False(plan.HasEnded(7 * Second, Second / 2));
        Assert.True(plan.HasEnded((7 * Second) + (Second / 2), Second / 2));
    }

    [Fact]
    public void Rr_ClosedLoopWithJitSettledWarmup_WarmsUpAtLeastTheMinimumThenMeasures()
    {
        var settings = new RrSettings(64, 64, 2, 1, 1, 0.2, 0, null, 10_000, WarmupJitIdleSeconds: 0.05);

        var result = RrRunner.Run(settings, null, CancellationToken.None);

        Assert.InRange(result.WarmupSeconds, 0.2, RrRunner.MostWarmupSeconds + 0.5);
        Assert.True(result.Completed > 0);
        Assert.Equal(result.Completed, result.Latency.Count);
        Assert.True(result.ProcessCpuMicrosecondsPerRequest > 0, "no CPU was counted for the window's requests");
    }

    [Fact]
    public void Rr_FixedRateWithJitSettledWarmup_CountsOnlyTheWindowsRequests()
    {
        // 500/s for 0.3 s: 150 requests intended inside the window, however long the warm-up before it lasted.
        var settings = new RrSettings(64, 64, 1, 1, 0.3, 0.05, 500, null, 10_000, WarmupJitIdleSeconds: 0.05);

        var result = RrRunner.Run(settings, null, CancellationToken.None);

        Assert.Equal("fixed-rate", result.Mode);
        Assert.Equal(result.Completed, result.Latency.Count);
        Assert.InRange(result.Completed + result.Lost, 100, 200);
        Assert.True(result.WarmupSeconds >= 0.05);
    }

    [Fact]
    public void Rr_FixedWarmup_ReportsExactlyTheWarmupAskedFor()
    {
        var settings = new RrSettings(64, 64, 1, 1, 0.3, 0.25, 0, null, 10_000);

        var result = RrRunner.Run(settings, null, CancellationToken.None);

        Assert.Equal(0.25, result.WarmupSeconds, 3);
        Assert.True(result.Completed > 0);
    }

    [Fact]
    public async Task JsonStream_SaysOnceWhenTheWindowOpens_BeforeTheSummary()
    {
        var (exit, output, error) = await Cli.RunAsync("rr", "-t", "0.5", "--warmup", "0.3", "--warmup-jit-idle", "0.05", "--json-stream");

        Assert.True(exit == 0, error);
        var lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var events = lines[..^1].Select(line => JsonDocument.Parse(line).RootElement).ToArray();
        var measuring = Assert.Single(events, e => e.GetProperty("event").GetString() == "measuring");
        Assert.True(measuring.GetProperty("seconds").GetDouble() >= 0.3, output);
        var result = JsonDocument.Parse(lines[^1]).RootElement.GetProperty("result");
        Assert.True(result.GetProperty("warmupSeconds").GetDouble() >= 0.3, output);
        Assert.True(result.GetProperty("processCpuMicrosecondsPerRequest").GetDouble() > 0, output);
    }
}
