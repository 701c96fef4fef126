namespace Salvo.Streams;

/// <summary>
/// Where a path is on its <see cref="RetryBackoff"/>: when a path on TCP next tries UDP (a MessageTransport, a tunnel
/// peer), next tries to open a TCP connection that closed, or a refused dial is tried again. One copy of source, compiled
/// into the library and the tunnel.
/// </summary>
internal sealed class UdpProbeSchedule(RetryBackoff backoff, Random random)
{
    // Doublings after which every back-off is at its cap: a positive TimeSpan has at most 63 bits of ticks.
    private const int AttemptsToCap = 64;

    private int _attempt;

    /// <summary>The delay before the next try (see <see cref="RetryBackoff.NextDelay"/>); advances the schedule.</summary>
    public TimeSpan Next()
    {
        // Past the cap the attempt no longer changes the delay, so it stops counting rather than overflow.
        _attempt = Math.Min(_attempt + 1, AttemptsToCap);
        return backoff.NextDelay(_attempt, random);
    }
}
