namespace Salvo.Internal;

/// <summary>A wait's <see cref="TimeSpan"/> as poll(2) and the platform layer take it: milliseconds, -1 for no limit.</summary>
internal static class PollTimeout
{
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative and not <see cref="Timeout.InfiniteTimeSpan"/>.</exception>
    public static int ToMilliseconds(TimeSpan timeout)
    {
        if (timeout == Timeout.InfiniteTimeSpan)
        {
            return -1;
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(timeout, TimeSpan.Zero, nameof(timeout));
        return (int)Math.Min(int.MaxValue, (long)timeout.TotalMilliseconds);
    }
}
