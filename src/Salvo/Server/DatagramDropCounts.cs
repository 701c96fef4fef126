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
    public long Total
    {
        get
        {
            long total = 0;
            foreach (var count in _counts ?? [])
            {
                total += count;
            }

            return total;
        }
    }

    /// <summary>The drops for <paramref name="reason"/>; 0 for a value that names no reason.</summary>
    public long this[DatagramDropReason reason] => _counts is { } counts && (uint)reason < (uint)counts.Length ? counts[(int)reason] : 0;

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
    public bool Equals(DatagramDropCounts other)
    {
        foreach (var reason in Reasons)
        {
            if (this[reason] != other[reason])
            {
                return false;
            }
        }

        return true;
    }

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is DatagramDropCounts other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode()
    {
        var hash = default(HashCode);
        foreach (var reason in Reasons)
        {
            hash.Add(this[reason]);
        }

        return hash.ToHashCode();
    }

    /// <summary>The reasons with a count, as <c>name=count</c> pairs (<see cref="NameOf"/>); "none" when there are none.</summary>
    public override string ToString()
    {
        var counts = this;
        var parts = Reasons.Where(reason => counts[reason] != 0).Select(reason => $"{NameOf(reason)}={counts[reason]}").ToArray();
        return parts.Length == 0 ? "none" : string.Join(", ", parts);
    }

    private static DatagramDropCounts Combine(DatagramDropCounts left, DatagramDropCounts right, int sign)
    {
        if (right._counts is null)
        {
            return left;
        }

        var counts = new long[Slots];
        foreach (var reason in Reasons)
        {
            counts[(int)reason] = left[reason] + (sign * right[reason]);
        }

        return new DatagramDropCounts(counts);
    }
}
