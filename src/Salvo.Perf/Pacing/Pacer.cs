namespace Salvo.Perf.Pacing;

/// <summary>
/// Paces a sender at a fixed rate without spinning: datagrams leave in bursts of
/// <see cref="BurstSize"/> = rate x the clock's tick (at least 1), one burst every
/// <see cref="BurstIntervalNanoseconds"/>, and between bursts the sender sleeps. A wake-up that comes late
/// lets the missed datagrams leave at once, so the average rate stays the one asked for. One pacer per
/// sending thread; not thread-safe.
/// </summary>
internal sealed class Pacer
{
    /// <summary>The longest single sleep, so a stop or the end of the run is seen within 50 ms at any rate.</summary>
    public const long MaxSleepNanoseconds = 50_000_000;

    private readonly long _startNanoseconds;
    private readonly IPacerClock _clock;

    /// <param name="perSecond">Datagrams per second (above 0).</param>
    /// <param name="startNanoseconds">When the first burst is due (monotonic ns of <paramref name="clock"/>).</param>
    /// <param name="clock">The time source and sleep.</param>
    public Pacer(double perSecond, long startNanoseconds, IPacerClock clock)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(perSecond);
        ArgumentNullException.ThrowIfNull(clock);
        _startNanoseconds = startNanoseconds;
        _clock = clock;
        BurstSize = Math.Max(1, (long)Math.Ceiling(perSecond * clock.TickNanoseconds / 1e9));
        BurstIntervalNanoseconds = BurstSize * 1e9 / perSecond;
    }

    /// <summary>Datagrams per burst.</summary>
    public long BurstSize { get; }

    /// <summary>Nanoseconds from one burst to the next.</summary>
    public double BurstIntervalNanoseconds { get; }

    /// <summary>When datagram <paramref name="index"/> (0-based) is meant to leave: the start of its burst.</summary>
    public long DueAt(long index) => _startNanoseconds + (long)Math.Ceiling(index / BurstSize * BurstIntervalNanoseconds);

    /// <summary>
    /// Sleeps until the next burst is due and returns how many datagrams may leave now, given that
    /// <paramref name="sent"/> have left; 0 once <paramref name="endNanoseconds"/> has come.
    /// </summary>
    public long WaitForBurst(long sent, long endNanoseconds)
    {
        while (true)
        {
            var now = _clock.NowNanoseconds();
            if (now >= endNanoseconds)
            {
                return 0;
            }

            var allowed = AllowedBy(now) - sent;
            if (allowed > 0)
            {
                return allowed;
            }

            _clock.Sleep(Math.Clamp(Math.Min(DueAt(sent), endNanoseconds) - now, 1, MaxSleepNanoseconds));
        }
    }

    private long AllowedBy(long now) => ((long)Math.Floor((now - _startNanoseconds) / BurstIntervalNanoseconds) + 1) * BurstSize;
}
