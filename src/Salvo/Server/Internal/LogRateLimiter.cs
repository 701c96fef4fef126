namespace Salvo.Server;

/// <summary>
/// Lets one log entry through per interval and counts the rest, so a handler failing on every datagram
/// (hundreds of thousands a second) costs one log line a second, not a flood. One per loop; not thread-safe.
/// </summary>
internal sealed class LogRateLimiter(TimeSpan interval, TimeProvider time)
{
    private readonly long _intervalTicks = (long)(interval.TotalSeconds * time.TimestampFrequency);
    private long _nextAllowed = long.MinValue;
    private long _suppressed;

    /// <summary>One entry a second on the system clock.</summary>
    public LogRateLimiter()
        : this(TimeSpan.FromSeconds(1), TimeProvider.System)
    {
    }

    /// <summary>True when this event may be logged; <paramref name="suppressed"/> is how many were held back since the last one.</summary>
    public bool TryEnter(out long suppressed)
    {
        var now = time.GetTimestamp();
        if (now >= _nextAllowed)
        {
            suppressed = _suppressed;
            _suppressed = 0;
            _nextAllowed = now + _intervalTicks;
            return true;
        }

        _suppressed++;
        suppressed = 0;
        return false;
    }
}
