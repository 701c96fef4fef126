namespace Salvo.Fuzz.Targets;

/// <summary>A clock that moves only when told, so that one input meets the same timestamps on every run.</summary>
internal sealed class FixedClock : TimeProvider
{
    private static readonly DateTimeOffset s_start = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);
    private long _ticks = TimeSpan.TicksPerDay;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => _ticks;

    public override DateTimeOffset GetUtcNow() => s_start.AddTicks(_ticks);

    public void Advance(TimeSpan by) => _ticks += by.Ticks;
}
