namespace Salvo.Perf.Measurement;

/// <summary>
/// Pins threads as they start and keeps the first reason a pin failed, so a report can say that its placement
/// did not hold instead of claiming one it did not get.
/// </summary>
internal sealed class PinFailures
{
    private string? _first;

    /// <summary>The first failure's reason, or null when every pin held.</summary>
    public string? First => Volatile.Read(ref _first);

    /// <summary>Pins the calling thread to <paramref name="cpu"/> (nothing when null), recording a failure.</summary>
    public void Pin(int? cpu)
    {
        if (cpu is { } c && !CpuAffinity.TryPinCurrentThread(c, out var reason))
        {
            Interlocked.CompareExchange(ref _first, reason, null);
        }
    }
}
