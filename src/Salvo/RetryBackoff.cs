namespace Salvo;

/// <summary>
/// A doubling back-off: the first wait, doubled after each failed try up to a cap, each wait moved earlier or later by a
/// random share so that many clients cut off by one outage (or one server restart) do not try again in step. One shape for
/// every retry in the library: a <see cref="Streams.MessageTransport"/>'s UDP probes and TCP reconnects, and the tunnel's
/// TCP fallback.
/// </summary>
/// <param name="FirstDelay">The wait before the first try; positive and finite.</param>
/// <param name="MaxDelay">The cap of the wait, which doubles after each failed try; finite and at least <paramref name="FirstDelay"/>.</param>
/// <param name="Jitter">The random share (0 to 1) by which each wait moves: 0.2 spreads it over ± 20 %.</param>
public sealed record RetryBackoff(TimeSpan FirstDelay, TimeSpan MaxDelay, double Jitter)
{
    /// <summary>
    /// The wait before try <paramref name="attempt"/> (1 for the first): <see cref="FirstDelay"/> × 2^(attempt − 1), at
    /// most <see cref="MaxDelay"/>, times a factor drawn from <paramref name="random"/> between 1 − <see cref="Jitter"/>
    /// and 1 + <see cref="Jitter"/>.
    /// </summary>
    public TimeSpan NextDelay(int attempt, Random random)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(attempt, 1);
        ArgumentNullException.ThrowIfNull(random);
        var ticks = FirstDelay.Ticks;
        var cap = MaxDelay.Ticks;
        for (var doubled = 1; doubled < attempt && ticks < cap; doubled++)
        {
            ticks = ticks > cap / 2 ? cap : ticks * 2;
        }

        // In doubles, so that a cap near TimeSpan.MaxValue spread upwards saturates instead of overflowing.
        var spread = Math.Min(ticks, cap) * (1 + (Jitter * ((2 * random.NextDouble()) - 1)));
        return spread >= long.MaxValue ? TimeSpan.MaxValue : TimeSpan.FromTicks((long)spread);
    }

    /// <summary>
    /// Throws an <see cref="ArgumentOutOfRangeException"/> that names the option holding this back-off
    /// (<paramref name="optionName"/>, e.g. "UdpReprobeBackoff") and the value that is wrong: "UdpReprobeBackoff.MaxDelay
    /// must be at least UdpReprobeBackoff.FirstDelay."
    /// </summary>
    public void Validate(string optionName)
    {
        CheckPositive(FirstDelay, $"{optionName}.{nameof(FirstDelay)}");
        CheckPositive(MaxDelay, $"{optionName}.{nameof(MaxDelay)}");
        if (MaxDelay < FirstDelay)
        {
            throw new ArgumentOutOfRangeException(
                $"{optionName}.{nameof(MaxDelay)}", MaxDelay, $"{optionName}.{nameof(MaxDelay)} must be at least {optionName}.{nameof(FirstDelay)}.");
        }

        if (double.IsNaN(Jitter) || Jitter is < 0 or > 1)
        {
            throw new ArgumentOutOfRangeException($"{optionName}.{nameof(Jitter)}", Jitter, $"{optionName}.{nameof(Jitter)} must be 0 to 1.");
        }
    }

    /// <summary>Throws unless <paramref name="backoff"/> is set and valid, naming <paramref name="optionName"/>.</summary>
    internal static void Check(RetryBackoff? backoff, string optionName)
    {
        if (backoff is null)
        {
            throw new ArgumentException($"{optionName} is required.", optionName);
        }

        backoff.Validate(optionName);
    }

    private static void CheckPositive(TimeSpan value, string name)
    {
        if (value <= TimeSpan.Zero || value == Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must be positive and finite.");
        }
    }
}
