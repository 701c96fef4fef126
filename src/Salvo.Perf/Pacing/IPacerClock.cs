namespace Salvo.Perf.Pacing;

/// <summary>The time source and the sleep a <see cref="Pacer"/> waits with; tests pass a fake one.</summary>
internal interface IPacerClock
{
    /// <summary>The sleep granularity: the shortest sleep this clock can do, and how late one may end.</summary>
    long TickNanoseconds { get; }

    /// <summary>Now, in monotonic nanoseconds.</summary>
    long NowNanoseconds();

    /// <summary>Sleeps about <paramref name="nanoseconds"/>; may end up to one tick late.</summary>
    void Sleep(long nanoseconds);
}
