using System.Collections.Concurrent;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>The system clock, noting the delay of every timer asked of it (a back-off is one).</summary>
internal sealed class TimerRecordingClock : TimeProvider
{
    private readonly ConcurrentQueue<TimeSpan> _timers = new();

    public IReadOnlyList<TimeSpan> Timers => [.. _timers];

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        _timers.Enqueue(dueTime);
        return base.CreateTimer(callback, state, dueTime, period);
    }
}
