using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary>
/// The one back-off of the library (<see cref="RetryBackoff"/>): its schedule and its checks, once for every option that
/// holds one.
/// </summary>
public sealed class RetryBackoffTests
{
    private static readonly RetryBackoff FiveToSixty = new(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60), Jitter: 0);

    [Fact]
    public void NextDelay_NoJitter_DoublesFromTheFirstDelayUpToTheCap()
    {
        var delays = Enumerable.Range(1, 7).Select(attempt => FiveToSixty.NextDelay(attempt, new Random(1)).TotalSeconds);

        Assert.Equal([5, 10, 20, 40, 60, 60, 60], delays);
    }

    [Theory]
    [InlineData(64)]
    [InlineData(int.MaxValue)]
    public void NextDelay_FarPastTheCap_StaysAtTheCap(int attempt)
    {
        var tiny = new RetryBackoff(TimeSpan.FromTicks(1), TimeSpan.MaxValue, Jitter: 0);

        Assert.Equal(TimeSpan.FromSeconds(60), FiveToSixty.NextDelay(attempt, new Random(1)));
        Assert.Equal(TimeSpan.FromTicks(1L << 62), tiny.NextDelay(63, new Random(1)));
        Assert.Equal(TimeSpan.MaxValue, tiny.NextDelay(attempt, new Random(1)));
        Assert.Equal(TimeSpan.MaxValue, (tiny with { Jitter = 1 }).NextDelay(attempt, new ConstantRandom(1)));
    }

    [Fact]
    public void NextDelay_WithJitter_SpreadsEachDelayWithinItsShare()
    {
        var backoff = FiveToSixty with { Jitter = 0.2 };
        var random = new Random(1);

        var firsts = Enumerable.Range(0, 1000).Select(_ => backoff.NextDelay(1, random).TotalSeconds).ToArray();
        var capped = Enumerable.Range(0, 1000).Select(_ => backoff.NextDelay(10, random).TotalSeconds).ToArray();

        Assert.All(firsts, delay => Assert.InRange(delay, 4, 6));
        Assert.True(firsts.Min() < 4.5 && firsts.Max() > 5.5, $"delays {firsts.Min()} to {firsts.Max()} s are not spread");
        Assert.All(capped, delay => Assert.InRange(delay, 48, 72));
    }

    [Fact]
    public void NextDelay_AttemptBelowOne_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => FiveToSixty.NextDelay(0, new Random(1)));
    }

    [Fact]
    public void Schedule_AdvancesOneAttemptPerDelay()
    {
        var schedule = new UdpProbeSchedule(FiveToSixty, new Random(1));

        var delays = Enumerable.Range(0, 7).Select(_ => schedule.Next().TotalSeconds);

        Assert.Equal([5, 10, 20, 40, 60, 60, 60], delays);
    }

    [Theory]
    [InlineData(0.0, 60.0, 0.2, "Option.FirstDelay", "Option.FirstDelay must be positive and finite.")]
    [InlineData(-1.0, 60.0, 0.2, "Option.FirstDelay", "Option.FirstDelay must be positive and finite.")]
    [InlineData(5.0, -1.0, 0.2, "Option.MaxDelay", "Option.MaxDelay must be positive and finite.")]
    [InlineData(5.0, 1.0, 0.2, "Option.MaxDelay", "Option.MaxDelay must be at least Option.FirstDelay.")]
    [InlineData(5.0, 60.0, -0.1, "Option.Jitter", "Option.Jitter must be 0 to 1.")]
    [InlineData(5.0, 60.0, 1.5, "Option.Jitter", "Option.Jitter must be 0 to 1.")]
    [InlineData(5.0, 60.0, double.NaN, "Option.Jitter", "Option.Jitter must be 0 to 1.")]
    public void Validate_BadValue_ThrowsNamingTheOptionAndTheValue(double first, double max, double jitter, string name, string message)
    {
        var backoff = new RetryBackoff(TimeSpan.FromSeconds(first), TimeSpan.FromSeconds(max), jitter);

        var e = Assert.Throws<ArgumentOutOfRangeException>(() => backoff.Validate("Option"));

        Assert.Equal(name, e.ParamName);
        Assert.StartsWith(message, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_InfiniteDelay_Throws()
    {
        var backoff = FiveToSixty with { MaxDelay = Timeout.InfiniteTimeSpan };

        Assert.Equal("Option.MaxDelay", Assert.Throws<ArgumentOutOfRangeException>(() => backoff.Validate("Option")).ParamName);
    }

    [Fact]
    public void Validate_EdgesOfTheRange_AreAccepted()
    {
        new RetryBackoff(TimeSpan.FromTicks(1), TimeSpan.FromTicks(1), 0).Validate("Option");
        new RetryBackoff(TimeSpan.FromSeconds(1), TimeSpan.FromDays(1), 1).Validate("Option");
    }

    [Fact]
    public void MessageTransportOptions_TakeABackoffForProbesAndReconnects()
    {
        var options = new MessageTransportOptions();

        Assert.Equal(new RetryBackoff(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60), 0.2), options.UdpReprobeBackoff);
        Assert.Equal(new RetryBackoff(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(5), 0.2), options.TcpReconnectBackoff);
        options.UdpReprobeBackoff = FiveToSixty with { MaxDelay = TimeSpan.FromSeconds(1) };
        var e = Assert.Throws<ArgumentOutOfRangeException>(options.Validate);
        Assert.Equal("UdpReprobeBackoff.MaxDelay", e.ParamName);
        Assert.StartsWith("UdpReprobeBackoff.MaxDelay must be at least UdpReprobeBackoff.FirstDelay.", e.Message, StringComparison.Ordinal);
    }

    /// <summary>A random source that always draws the same value, to reach the ends of the jitter's range.</summary>
    private sealed class ConstantRandom(double value) : Random
    {
        public override double NextDouble() => value;
    }
}
