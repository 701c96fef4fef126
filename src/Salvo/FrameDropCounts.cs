using Salvo.Internal;

namespace Salvo;

/// <summary>
/// Frames dropped by a backend that parses frames itself, counted by <see cref="FrameDropReason"/>; all zero on other
/// backends. A value: a snapshot, compared by its counts.
/// </summary>
public readonly struct FrameDropCounts : IEquatable<FrameDropCounts>
{
    /// <summary>The counters an array of counts holds: one per reason, indexed by its value (index 0 unused).</summary>
    internal const int Slots = (int)FrameDropReason.OtherDestination + 1;

    private readonly long[]? _counts;

    internal FrameDropCounts(long[] counts) => _counts = counts;

    /// <summary>Every reason, in the order of its value.</summary>
    public static IReadOnlyList<FrameDropReason> Reasons { get; } = Enum.GetValues<FrameDropReason>();

    /// <summary>All drops, every reason.</summary>
    public long Total => CountsByReason.Total(_counts);

    /// <summary>The drops for <paramref name="reason"/>; 0 for a value that names no reason.</summary>
    public long this[FrameDropReason reason] => CountsByReason.At(_counts, (int)reason);

    /// <summary>Whether both hold the same count for every reason.</summary>
    public static bool operator ==(FrameDropCounts left, FrameDropCounts right) => left.Equals(right);

    /// <summary>Whether the counts differ for some reason.</summary>
    public static bool operator !=(FrameDropCounts left, FrameDropCounts right) => !left.Equals(right);

    /// <summary>The counts of both, reason by reason: the drops of several sockets together.</summary>
    public static FrameDropCounts operator +(FrameDropCounts left, FrameDropCounts right) => Combine(left, right, 1);

    /// <summary>The counts of <paramref name="left"/> less those of <paramref name="right"/>: the drops of an interval.</summary>
    public static FrameDropCounts operator -(FrameDropCounts left, FrameDropCounts right) => Combine(left, right, -1);

    /// <summary>The same as <c>left + right</c>.</summary>
    public static FrameDropCounts Add(FrameDropCounts left, FrameDropCounts right) => left + right;

    /// <summary>The same as <c>left - right</c>.</summary>
    public static FrameDropCounts Subtract(FrameDropCounts left, FrameDropCounts right) => left - right;

    /// <summary>Whether <paramref name="other"/> holds the same count for every reason.</summary>
    public bool Equals(FrameDropCounts other) => CountsByReason.Same(_counts, other._counts, Slots);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is FrameDropCounts other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => CountsByReason.Hash(_counts, Slots);

    /// <summary>The reasons with a count, as <c>reason=count</c> pairs; "none" when there are none.</summary>
    public override string ToString()
    {
        var counts = this;
        return CountsByReason.Describe(Reasons, reason => counts[reason], reason => reason.ToString());
    }

    private static FrameDropCounts Combine(FrameDropCounts left, FrameDropCounts right, int sign) =>
        CountsByReason.Combine(left._counts, right._counts, Slots, sign) is { } counts ? new FrameDropCounts(counts) : default;
}
