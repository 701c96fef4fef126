namespace Salvo.Perf.Rr;

/// <summary>
/// What every connection of one rr run does: when the measured window opens and ends, and when an unanswered request
/// counts as lost. The window is either fixed when the run starts or opened later by the runner, once the JIT has
/// settled (<see cref="JitSettledWarmup"/>); until then it lies at the end of time, so nothing counts as measured.
/// </summary>
internal sealed class RrPlan
{
    private long _warmupEndNanoseconds;
    private long _measureEndNanoseconds;
    private volatile bool _stopped;

    /// <summary>A window fixed from the start.</summary>
    /// <param name="warmupEndNanoseconds">Start of the measured window (monotonic ns).</param>
    /// <param name="measureEndNanoseconds">End of the measured window.</param>
    /// <param name="timeoutNanoseconds">When an unanswered request counts as lost.</param>
    public RrPlan(long warmupEndNanoseconds, long measureEndNanoseconds, long timeoutNanoseconds)
    {
        _warmupEndNanoseconds = warmupEndNanoseconds;
        _measureEndNanoseconds = measureEndNanoseconds;
        TimeoutNanoseconds = timeoutNanoseconds;
    }

    /// <summary>A window that opens when <see cref="Open"/> is called.</summary>
    /// <param name="timeoutNanoseconds">When an unanswered request counts as lost.</param>
    public static RrPlan OpenedLater(long timeoutNanoseconds) => new(long.MaxValue, long.MaxValue, timeoutNanoseconds);

    /// <summary>Start of the measured window (monotonic ns); <see cref="long.MaxValue"/> until it opens.</summary>
    public long WarmupEndNanoseconds => Volatile.Read(ref _warmupEndNanoseconds);

    /// <summary>End of the measured window; <see cref="long.MaxValue"/> until it opens.</summary>
    public long MeasureEndNanoseconds => Volatile.Read(ref _measureEndNanoseconds);

    /// <summary>When an unanswered request counts as lost.</summary>
    public long TimeoutNanoseconds { get; }

    /// <summary>
    /// Opens the window at <paramref name="nowNanoseconds"/> for <paramref name="durationNanoseconds"/>. The end is
    /// published before the start, and readers read the start first: a thread that sees the window open also sees
    /// where it ends.
    /// </summary>
    public void Open(long nowNanoseconds, long durationNanoseconds)
    {
        Volatile.Write(ref _measureEndNanoseconds, nowNanoseconds + durationNanoseconds);
        Volatile.Write(ref _warmupEndNanoseconds, nowNanoseconds);
    }

    /// <summary>Whether <paramref name="nowNanoseconds"/> lies in the measured window.</summary>
    public bool IsMeasuring(long nowNanoseconds) => nowNanoseconds >= WarmupEndNanoseconds && nowNanoseconds < MeasureEndNanoseconds;

    /// <summary>
    /// Ends the run now, window or not (the user stopped it): every connection's loop sees <see cref="HasEnded"/> at its
    /// next turn, within one receive timeout, so its socket is not disposed under it.
    /// </summary>
    public void Stop() => _stopped = true;

    /// <summary>
    /// Whether the window ended at least <paramref name="graceNanoseconds"/> before <paramref name="nowNanoseconds"/>
    /// (never while it is unopened), or the run was stopped.
    /// </summary>
    public bool HasEnded(long nowNanoseconds, long graceNanoseconds = 0)
    {
        if (_stopped)
        {
            return true;
        }

        var end = MeasureEndNanoseconds;
        return nowNanoseconds >= end && nowNanoseconds - end >= graceNanoseconds;
    }
}
