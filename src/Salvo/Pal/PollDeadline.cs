namespace Salvo.Pal;

/// <summary>
/// When a blocking call gives up (<paramref name="timeoutMilliseconds"/> from now; negative: never), waited for in
/// slices of at most <see cref="SliceMilliseconds"/>, so that a disposal racing the wait is seen within one slice
/// even where nothing wakes the blocked thread.
/// </summary>
internal readonly struct PollDeadline(int timeoutMilliseconds)
{
    public const int SliceMilliseconds = 250;

    private readonly long _at = timeoutMilliseconds < 0 ? long.MaxValue : Environment.TickCount64 + timeoutMilliseconds;

    public static PollDeadline Never => new(-1);

    /// <summary>The next wait, up to one slice; false once the deadline has passed.</summary>
    public bool TryNextSlice(out int milliseconds)
    {
        var remaining = _at - Environment.TickCount64;
        milliseconds = (int)Math.Clamp(remaining, 0, SliceMilliseconds);
        return remaining > 0;
    }
}
