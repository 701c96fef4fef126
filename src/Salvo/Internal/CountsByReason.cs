namespace Salvo.Internal;

/// <summary>
/// The arithmetic of a snapshot of counts by reason (<see cref="FrameDropCounts"/>, <see cref="Server.DatagramDropCounts"/>):
/// an array indexed by the reason's value, null when nothing was counted, read as zero past its end.
/// </summary>
internal static class CountsByReason
{
    /// <summary>The count at <paramref name="slot"/>; 0 for a null array or a slot past its end.</summary>
    public static long At(long[]? counts, int slot) => counts is not null && (uint)slot < (uint)counts.Length ? counts[slot] : 0;

    /// <summary>Every count added up.</summary>
    public static long Total(long[]? counts)
    {
        long total = 0;
        foreach (var count in counts ?? [])
        {
            total += count;
        }

        return total;
    }

    /// <summary>Whether both hold the same count in each of the first <paramref name="slots"/> slots.</summary>
    public static bool Same(long[]? left, long[]? right, int slots)
    {
        for (var slot = 0; slot < slots; slot++)
        {
            if (At(left, slot) != At(right, slot))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>A hash of the first <paramref name="slots"/> counts, equal for arrays <see cref="Same"/> calls equal.</summary>
    public static int Hash(long[]? counts, int slots)
    {
        var hash = default(HashCode);
        for (var slot = 0; slot < slots; slot++)
        {
            hash.Add(At(counts, slot));
        }

        return hash.ToHashCode();
    }

    /// <summary><paramref name="left"/> plus <paramref name="sign"/> times <paramref name="right"/>, slot by slot; <paramref name="left"/> itself when <paramref name="right"/> is null.</summary>
    public static long[]? Combine(long[]? left, long[]? right, int slots, int sign)
    {
        if (right is null)
        {
            return left;
        }

        var counts = new long[slots];
        for (var slot = 0; slot < slots; slot++)
        {
            counts[slot] = At(left, slot) + (sign * At(right, slot));
        }

        return counts;
    }

    /// <summary>The reasons with a count, as <c>name=count</c> pairs; "none" when there are none.</summary>
    public static string Describe<TReason>(IReadOnlyList<TReason> reasons, Func<TReason, long> count, Func<TReason, string> name)
    {
        var parts = reasons.Where(reason => count(reason) != 0).Select(reason => $"{name(reason)}={count(reason)}").ToArray();
        return parts.Length == 0 ? "none" : string.Join(", ", parts);
    }
}
