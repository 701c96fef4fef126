using System.Diagnostics;

namespace Salvo.Perf.Cli;

/// <summary>
/// Writes notes of one kind on stderr at most once per period, each saying how many like it were held back
/// since the last: a flood of refused connections (thousands a second) must not become a flood of log lines,
/// and none of them may go uncounted.
/// </summary>
internal sealed class ThrottledNote(CliConsole console, TimeSpan period)
{
    private readonly Lock _lock = new();
    private long _lastWritten = long.MinValue;
    private long _heldBack;

    /// <summary>Writes <paramref name="text"/> now, or counts it when a note of this kind was written within the period.</summary>
    public void Write(string text)
    {
        var now = Stopwatch.GetTimestamp();
        long heldBack;
        lock (_lock)
        {
            if (_lastWritten != long.MinValue && Stopwatch.GetElapsedTime(_lastWritten, now) < period)
            {
                _heldBack++;
                return;
            }

            heldBack = _heldBack;
            _heldBack = 0;
            _lastWritten = now;
        }

        console.Note(heldBack == 0 ? text : $"{text} ({heldBack:N0} more like this not logged since the last)");
    }
}
