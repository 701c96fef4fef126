using System.Diagnostics;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// Real time run <c>factor</c> times faster: a tunnel on it reaches REKEY_AFTER_TIME (120 s) in 120/factor real seconds,
/// so rekeying under live traffic fits in a short lab test. Both the monotonic and the wall clock (TAI64N) speed up.
/// </summary>
internal sealed class ScaledClock(double factor) : TimeProvider
{
    private readonly long _origin = Stopwatch.GetTimestamp();
    private readonly DateTimeOffset _start = DateTimeOffset.UtcNow;

    public override long TimestampFrequency => Stopwatch.Frequency;

    public override long GetTimestamp() => _origin + (long)((Stopwatch.GetTimestamp() - _origin) * factor);

    public override DateTimeOffset GetUtcNow() => _start + Stopwatch.GetElapsedTime(_origin) * factor;
}
