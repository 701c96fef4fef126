using Salvo.Tests.Streams;

namespace Salvo.Tests;

/// <summary>
/// The receive loops' error policy on a manual clock: every failure counted, the first of each interval let through
/// to the log with the number held back, a pause of the back-off delay on the policy's clock that a stop ends early.
/// </summary>
public sealed class ReceiveErrorPolicyTests
{
    [Fact]
    public void RecordError_ManyWithinOneInterval_LogsTheFirstOnlyThenTheNextAfterTheInterval()
    {
        var clock = new ManualTimeProvider();
        var policy = new ReceiveErrorPolicy(TimeSpan.FromSeconds(1), TimeSpan.FromMilliseconds(10), clock);

        Assert.True(policy.RecordError(out var first));
        Assert.False(policy.RecordError(out _));
        clock.Advance(TimeSpan.FromMilliseconds(999));
        Assert.False(policy.RecordError(out _));
        clock.Advance(TimeSpan.FromMilliseconds(1));
        Assert.True(policy.RecordError(out var afterInterval));

        Assert.Equal(0, first);
        Assert.Equal(2, afterInterval);
        Assert.Equal(4, policy.Errors);
    }

    [Fact]
    public async Task BackOff_WaitsTheDelayOnItsClock()
    {
        var clock = new ManualTimeProvider();
        var policy = new ReceiveErrorPolicy(TimeSpan.FromSeconds(1), TimeSpan.FromMilliseconds(10), clock);

        var backingOff = Task.Run(() => policy.BackOff());

        Assert.Equal([TimeSpan.FromMilliseconds(10)], await clock.WaitForArmedTimersAsync(1));
        Assert.False(backingOff.IsCompleted);
        clock.Advance(TimeSpan.FromMilliseconds(10));
        await backingOff.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task BackOffAsync_Stopped_EndsAtOnceWithoutThrowing()
    {
        var clock = new ManualTimeProvider();
        var policy = new ReceiveErrorPolicy(TimeSpan.FromSeconds(1), TimeSpan.FromMilliseconds(10), clock);
        using var stop = new CancellationTokenSource();

        var blocking = Task.Run(() => policy.BackOff(stop.Token));
        var awaiting = policy.BackOffAsync(stop.Token);
        await clock.WaitForArmedTimersAsync(2);
        await stop.CancelAsync();

        await blocking.WaitAsync(TimeSpan.FromSeconds(10));
        await awaiting.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(awaiting.IsCompletedSuccessfully);
    }

    [Fact]
    public void Defaults_AreTheServersOneLineASecondAndTenMilliseconds()
    {
        var policy = new ReceiveErrorPolicy();

        Assert.Equal(TimeSpan.FromSeconds(1), policy.LogInterval);
        Assert.Equal(TimeSpan.FromMilliseconds(10), policy.BackOffDelay);
        Assert.Equal(0, policy.Errors);
    }

    [Theory]
    [InlineData(-1, 10, "logInterval")]
    [InlineData(1000, -1, "backOffDelay")]
    public void Constructor_NegativeTime_IsRefusedNamingIt(int logMilliseconds, int backOffMilliseconds, string parameter)
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => new ReceiveErrorPolicy(TimeSpan.FromMilliseconds(logMilliseconds), TimeSpan.FromMilliseconds(backOffMilliseconds)));

        Assert.Equal(parameter, error.ParamName);
    }
}
