namespace Salvo.Perf.Impair;

/// <summary>One item leaving an <see cref="ImpairLine{T}"/>.</summary>
/// <param name="Item">What to send.</param>
/// <param name="IsLastCopy">Whether no further copy of <paramref name="Item"/> follows (its buffer may be returned after sending).</param>
internal readonly record struct Emission<T>(T Item, bool IsLastCopy);

/// <summary>
/// One direction of the relay as a pure state machine: datagrams go in with the time, come out (possibly
/// later, twice, or after later ones) into a list the caller sends in order. No sockets and no clock of its
/// own, so tests drive it with any time they like. Not thread-safe: the relay locks it.
/// </summary>
/// <remarks>
/// <para>A datagram the decider holds back waits until <c>reorderGap</c> later datagrams have left, or
/// until <c>reorderHold</c> has passed, whichever comes first. Delay is latency, not reordering: a
/// datagram never leaves the delay line before one that entered it earlier (release time = max(arrival +
/// delay, previous release)), so the only reordering is the holding, and it is counted when it happens.</para>
/// <para>Counting is by observation of what leaves: <b>reordered</b> is a datagram whose first copy left
/// after a datagram that arrived later, exactly what a receiver counting sequence numbers calls out of
/// order when the input was in order.</para>
/// </remarks>
internal sealed class ImpairLine<T>
{
    private readonly ImpairDecider _decider;
    private readonly int _reorderGap;
    private readonly long _reorderHoldNanoseconds;
    private readonly Queue<Entry> _delayLine = new();
    private readonly List<Held> _held = [];
    private readonly ImpairCounters _counters = new();
    private long _nextIndex;
    private long _highestEmitted = -1;
    private long _lastDue = long.MinValue;

    /// <param name="decider">The dice.</param>
    /// <param name="reorderGap">Later datagrams that overtake a held one before it is released (at least 1).</param>
    /// <param name="reorderHoldNanoseconds">Longest a datagram is held when fewer later ones arrive.</param>
    public ImpairLine(ImpairDecider decider, int reorderGap, long reorderHoldNanoseconds)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(reorderGap, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(reorderHoldNanoseconds);
        _decider = decider;
        _reorderGap = reorderGap;
        _reorderHoldNanoseconds = reorderHoldNanoseconds;
    }

    /// <summary>Copies waiting in the delay line or held back.</summary>
    public int Pending => _delayLine.Sum(e => e.Copies) + _held.Sum(h => h.Entry.Copies);

    /// <summary>When <see cref="Advance"/> next has something to release, or <see cref="long.MaxValue"/>.</summary>
    public long NextDueNanoseconds
    {
        get
        {
            var next = _delayLine.Count > 0 ? _delayLine.Peek().Due : long.MaxValue;
            foreach (var held in _held)
            {
                next = Math.Min(next, held.Deadline);
            }

            return next;
        }
    }

    /// <summary>What this direction has done so far.</summary>
    public ImpairDirectionReport Report(string direction) => _counters.Report(direction, Pending);

    /// <summary>
    /// Takes one arriving datagram. Returns false when it was dropped (the caller still owns it); otherwise
    /// the line owns it until it comes out of <paramref name="output"/> with <see cref="Emission{T}.IsLastCopy"/>.
    /// </summary>
    public bool Accept(T item, long nowNanoseconds, List<Emission<T>> output)
    {
        _counters.Received++;
        var index = _nextIndex++;
        var decision = _decider.Next();
        if (decision.Drop)
        {
            _counters.Dropped++;
            Advance(nowNanoseconds, output);
            return false;
        }

        var copies = decision.Duplicate ? 2 : 1;
        if (decision.Duplicate)
        {
            _counters.Duplicated++;
        }

        var entry = new Entry(item, index, copies, 0);
        if (decision.Hold)
        {
            _counters.Held++;
            _held.Add(new Held(entry, _reorderGap, nowNanoseconds + _reorderHoldNanoseconds));
        }
        else
        {
            var due = Math.Max(nowNanoseconds + decision.DelayNanoseconds, _lastDue);
            _lastDue = due;
            if (due > nowNanoseconds)
            {
                _counters.Delayed++;
            }

            _delayLine.Enqueue(entry with { Due = due });
        }

        Advance(nowNanoseconds, output);
        return true;
    }

    /// <summary>Releases everything due at <paramref name="nowNanoseconds"/>, in order.</summary>
    public void Advance(long nowNanoseconds, List<Emission<T>> output)
    {
        while (true)
        {
            if (_delayLine.Count > 0 && _delayLine.Peek().Due <= nowNanoseconds)
            {
                Emit(_delayLine.Dequeue(), output);
                continue;
            }

            var expired = _held.FindIndex(h => h.Deadline <= nowNanoseconds);
            if (expired < 0)
            {
                return;
            }

            var held = _held[expired];
            _held.RemoveAt(expired);
            Emit(held.Entry, output);
        }
    }

    /// <summary>Releases everything at once (the relay is stopping), delay line first, then what is held.</summary>
    public void Flush(List<Emission<T>> output)
    {
        while (_delayLine.Count > 0)
        {
            Emit(_delayLine.Dequeue(), output);
        }

        while (_held.Count > 0)
        {
            var held = _held[0];
            _held.RemoveAt(0);
            Emit(held.Entry, output);
        }
    }

    /// <summary>The kernel refused <paramref name="copies"/> of what was emitted: they were not forwarded.</summary>
    public void RecordSendFailures(int copies)
    {
        _counters.Forwarded -= copies;
        _counters.SendErrors += copies;
    }

    private void Emit(Entry entry, List<Emission<T>> output)
    {
        if (entry.Index < _highestEmitted)
        {
            _counters.Reordered++;
        }

        _highestEmitted = Math.Max(_highestEmitted, entry.Index);
        for (var copy = 1; copy <= entry.Copies; copy++)
        {
            output.Add(new Emission<T>(entry.Item, copy == entry.Copies));
        }

        _counters.Forwarded += entry.Copies;

        // A later datagram has left: every held one that arrived before it is overtaken once more.
        for (var i = 0; i < _held.Count; i++)
        {
            if (_held[i].Entry.Index < entry.Index)
            {
                _held[i] = _held[i] with { Remaining = _held[i].Remaining - 1 };
            }
        }

        var released = _held.FindIndex(h => h.Remaining <= 0);
        if (released >= 0)
        {
            var held = _held[released];
            _held.RemoveAt(released);
            Emit(held.Entry, output);
        }
    }

    private readonly record struct Entry(T Item, long Index, int Copies, long Due);

    private readonly record struct Held(Entry Entry, int Remaining, long Deadline);
}
