namespace Salvo.Tunnel.Tests.Support;

/// <summary>A clock that moves only when told: monotonic ticks of 100 ns and a wall clock that follows them.</summary>
internal sealed class ManualClock : TimeProvider
{
    private static readonly DateTimeOffset s_start = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);
    private long _ticks = TimeSpan.TicksPerDay;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => _ticks;

    public override DateTimeOffset GetUtcNow() => s_start.AddTicks(_ticks);

    public void Advance(TimeSpan by) => _ticks += by.Ticks;
}
