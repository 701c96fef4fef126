namespace Salvo.Server;

/// <summary>
/// Lets one log entry through per interval and counts the rest, so a handler failing on every datagram
/// (hundreds of thousands a second) costs one log line a second, not a flood. One per loop; not thread-safe.
/// </summary>
internal sealed class LogRateLimiter(long intervalMilliseconds = 1000)
{
    private long _nextAllowed;
    private long _suppressed;

    /// <summary>True when this event may be logged; <paramref name="suppressed"/> is how many were held back since the last one.</summary>
    public bool TryEnter(out long suppressed)
    {
        var now = Environment.TickCount64;
        if (now >= _nextAllowed)
        {
            suppressed = _suppressed;
            _suppressed = 0;
            _nextAllowed = now + intervalMilliseconds;
            return true;
        }

        _suppressed++;
        suppressed = 0;
        return false;
    }
}
