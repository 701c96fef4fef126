namespace Salvo.Tests.Streams;

/// <summary>A clock whose time and timers move only on <see cref="Advance"/>, so that schedules are tested without waiting.</summary>
internal sealed class ManualTimeProvider : TimeProvider
{
    private readonly Lock _lock = new();
    private readonly List<ManualTimer> _timers = [];
    private long _ticks = TimeSpan.TicksPerDay;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp()
    {
        lock (_lock)
        {
            return _ticks;
        }
    }

    public override DateTimeOffset GetUtcNow() => DateTimeOffset.UnixEpoch.AddTicks(GetTimestamp());

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>How long from now each armed timer fires, soonest first.</summary>
    public IReadOnlyList<TimeSpan> ArmedTimers()
    {
        lock (_lock)
        {
            return [.. _timers.Select(t => TimeSpan.FromTicks(t.DueTicks - _ticks)).Order()];
        }
    }

    /// <summary>Waits (bounded) until <paramref name="count"/> timers are armed: the code under test arms them on its own threads.</summary>
    public async Task<IReadOnlyList<TimeSpan>> WaitForArmedTimersAsync(int count)
    {
        var deadline = DateTime.UtcNow + RecordingHandler.Patience;
        while (ArmedTimers().Count != count)
        {
            Assert.True(DateTime.UtcNow < deadline, $"{ArmedTimers().Count} timers armed, waited for {count}.");
            await Task.Delay(5);
        }

        return ArmedTimers();
    }

    /// <summary>Moves time on and fires, on the caller's thread, every timer that came due.</summary>
    public void Advance(TimeSpan by)
    {
        List<ManualTimer> due;
        lock (_lock)
        {
            _ticks += by.Ticks;
            due = [.. _timers.Where(t => t.DueTicks <= _ticks)];
            _timers.RemoveAll(due.Contains);
        }

        foreach (var timer in due)
        {
            timer.Fire();
        }
    }

    private sealed class ManualTimer(ManualTimeProvider clock, TimerCallback callback, object? state) : ITimer
    {
        public long DueTicks { get; private set; }

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            // Periodic timers are not needed by the code under test; a period would be silently ignored, so refuse it.
            Assert.True(period == Timeout.InfiniteTimeSpan || period == TimeSpan.Zero, "ManualTimeProvider has no periodic timers.");
            lock (clock._lock)
            {
                clock._timers.Remove(this);
                if (dueTime != Timeout.InfiniteTimeSpan)
                {
                    DueTicks = clock._ticks + dueTime.Ticks;
                    clock._timers.Add(this);
                }
            }

            if (dueTime == TimeSpan.Zero)
            {
                clock.Advance(TimeSpan.Zero);
            }

            return true;
        }

        public void Fire() => callback(state);

        public void Dispose() => Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
