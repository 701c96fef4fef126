namespace Salvo.Perf.Protocol;

/// <summary>
/// Loss, reordering, duplication and jitter of one flow, from the sequence numbers (counted from 0) and
/// send times of the datagrams that arrived. Pure: feed it, read it; not thread-safe (one per receiving
/// thread and flow).
/// </summary>
/// <remarks>
/// <para>Definitions. <b>Received</b>: every datagram fed. <b>Duplicate</b>: a sequence number seen
/// before. <b>Out of order</b>: a new sequence number lower than the highest seen (it arrived after a
/// later one). <b>Lost</b>: numbers from 0 to the highest seen (or to the sender's count, see
/// <see cref="LostAgainst"/>) that never arrived; a late arrival fills its gap.</para>
/// <para>Duplicates are recognised within the last <see cref="Window"/> numbers below the highest; an
/// older arrival is counted out of order and new (it cannot be told from a duplicate).</para>
/// <para>Jitter as RFC 3550 section 6.4.1: the transit time D of consecutive arrivals, smoothed
/// J += (|D| - J) / 16, in nanoseconds. Clock offsets between sender and receiver cancel out.</para>
/// </remarks>
internal sealed class SequenceTracker
{
    /// <summary>How far below the highest number duplicates are still recognised.</summary>
    public const int Window = 1 << 16;

    private readonly ulong[] _seen = new ulong[Window / 64];
    private bool _any;
    private ulong _highest;
    private long _previousTransit;
    private double _jitter;

    /// <summary>Datagrams fed, duplicates included.</summary>
    public long Received { get; private set; }

    /// <summary>Distinct sequence numbers received.</summary>
    public long Unique { get; private set; }

    /// <summary>Datagrams whose number had been received before.</summary>
    public long Duplicates { get; private set; }

    /// <summary>New numbers that arrived after a higher one.</summary>
    public long OutOfOrder { get; private set; }

    /// <summary>The highest number received, or -1 when none.</summary>
    public long Highest => _any ? (long)_highest : -1;

    /// <summary>Numbers from 0 to <see cref="Highest"/> not received (yet).</summary>
    public long Lost => _any ? (long)_highest + 1 - Unique : 0;

    /// <summary>RFC 3550 interarrival jitter in nanoseconds.</summary>
    public double JitterNanoseconds => _jitter;

    /// <summary>Numbers the sender sent (0 to <paramref name="sent"/> - 1) that never arrived.</summary>
    public long LostAgainst(long sent) => Math.Max(0, Math.Max(sent, Highest + 1) - Unique);

    /// <summary>Feeds one arrival.</summary>
    /// <param name="sequence">The datagram's sequence number.</param>
    /// <param name="sendTimeNanoseconds">The sender's time stamp.</param>
    /// <param name="arrivalNanoseconds">The receiver's clock on arrival.</param>
    public void Record(ulong sequence, long sendTimeNanoseconds, long arrivalNanoseconds)
    {
        Received++;
        if (!_any)
        {
            _any = true;
            _highest = sequence;
            Mark(sequence);
            Unique++;
            _previousTransit = arrivalNanoseconds - sendTimeNanoseconds;
            return;
        }

        if (sequence > _highest)
        {
            ClearBetween(_highest, sequence);
            _highest = sequence;
        }
        else if (_highest - sequence < Window)
        {
            if (IsMarked(sequence))
            {
                Duplicates++;
                return;
            }

            OutOfOrder++;
        }
        else
        {
            // Older than the window: cannot be told from a duplicate; counted as a late, new arrival.
            OutOfOrder++;
            Unique++;
            UpdateJitter(sendTimeNanoseconds, arrivalNanoseconds);
            return;
        }

        Mark(sequence);
        Unique++;
        UpdateJitter(sendTimeNanoseconds, arrivalNanoseconds);
    }

    private void UpdateJitter(long sendTimeNanoseconds, long arrivalNanoseconds)
    {
        var transit = arrivalNanoseconds - sendTimeNanoseconds;
        var d = Math.Abs(transit - _previousTransit);
        _previousTransit = transit;
        _jitter += (d - _jitter) / 16.0;
    }

    private void Mark(ulong sequence) => _seen[(sequence % Window) / 64] |= 1UL << (int)(sequence % 64);

    private bool IsMarked(ulong sequence) => (_seen[(sequence % Window) / 64] & (1UL << (int)(sequence % 64))) != 0;

    /// <summary>Forgets the marks of the numbers (from, to] that the window's advance reuses.</summary>
    private void ClearBetween(ulong from, ulong to)
    {
        if (to - from >= Window)
        {
            Array.Clear(_seen);
            return;
        }

        for (var s = from + 1; s <= to; s++)
        {
            _seen[(s % Window) / 64] &= ~(1UL << (int)(s % 64));
        }
    }
}
