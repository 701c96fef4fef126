using Salvo.Internal;

namespace Salvo.Server;

/// <summary>
/// Datagrams a <see cref="DatagramServer"/> dropped after receiving them, counted by <see cref="DatagramDropReason"/>. A
/// value: a snapshot, compared by its counts.
/// </summary>
public readonly struct DatagramDropCounts : IEquatable<DatagramDropCounts>
{
    /// <summary>The counters an array of counts holds: one per reason, indexed by its value (index 0 unused).</summary>
    internal static readonly int Slots = Enum.GetValues<DatagramDropReason>().Max(reason => (int)reason) + 1;

    private readonly long[]? _counts;

    internal DatagramDropCounts(long[] counts) => _counts = counts;

    /// <summary>Every reason, in the order of its value.</summary>
    public static IReadOnlyList<DatagramDropReason> Reasons { get; } = Enum.GetValues<DatagramDropReason>();

    /// <summary>All drops, every reason.</summary>
    public long Total => CountsByReason.Total(_counts);

    /// <summary>The drops for <paramref name="reason"/>; 0 for a value that names no reason.</summary>
    public long this[DatagramDropReason reason] => CountsByReason.At(_counts, (int)reason);

    /// <summary>Whether both hold the same count for every reason.</summary>
    public static bool operator ==(DatagramDropCounts left, DatagramDropCounts right) => left.Equals(right);

    /// <summary>Whether the counts differ for some reason.</summary>
    public static bool operator !=(DatagramDropCounts left, DatagramDropCounts right) => !left.Equals(right);

    /// <summary>The counts of both, reason by reason: the drops of several workers together.</summary>
    public static DatagramDropCounts operator +(DatagramDropCounts left, DatagramDropCounts right) => Combine(left, right, 1);

    /// <summary>The counts of <paramref name="left"/> less those of <paramref name="right"/>: the drops of an interval.</summary>
    public static DatagramDropCounts operator -(DatagramDropCounts left, DatagramDropCounts right) => Combine(left, right, -1);

    /// <summary>The same as <c>left + right</c>.</summary>
    public static DatagramDropCounts Add(DatagramDropCounts left, DatagramDropCounts right) => left + right;

    /// <summary>The same as <c>left - right</c>.</summary>
    public static DatagramDropCounts Subtract(DatagramDropCounts left, DatagramDropCounts right) => left - right;

    /// <summary>
    /// The name a reason is printed and tagged under: its name in snake case (<see cref="DatagramDropReason.QueueFull"/> is
    /// <c>queue_full</c>), the value of the meter's drop-reason tag.
    /// </summary>
    public static string NameOf(DatagramDropReason reason) =>
        string.Concat(reason.ToString().Select((c, i) => char.IsUpper(c) && i > 0 ? "_" + char.ToLowerInvariant(c) : char.ToLowerInvariant(c).ToString()));

    /// <summary>Whether <paramref name="other"/> holds the same count for every reason.</summary>
    public bool Equals(DatagramDropCounts other) => CountsByReason.Same(_counts, other._counts, Slots);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is DatagramDropCounts other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => CountsByReason.Hash(_counts, Slots);

    /// <summary>The reasons with a count, as <c>name=count</c> pairs (<see cref="NameOf"/>); "none" when there are none.</summary>
    public override string ToString()
    {
        var counts = this;
        return CountsByReason.Describe(Reasons, reason => counts[reason], NameOf);
    }

    private static DatagramDropCounts Combine(DatagramDropCounts left, DatagramDropCounts right, int sign) =>
        CountsByReason.Combine(left._counts, right._counts, Slots, sign) is { } counts ? new DatagramDropCounts(counts) : default;
}
