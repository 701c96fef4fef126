using System.Diagnostics;
using Salvo.Perf.Protocol;

namespace Salvo.Perf.Pacing;

/// <summary>
/// The real clock: <see cref="Thread.Sleep(int)"/> in whole milliseconds, with the tick measured once per
/// process (the median of five 1 ms sleeps; 1.06-1.1 ms on the Linux guests here, ~15.6 ms on a default
/// Windows timer).
/// </summary>
internal sealed class SystemPacerClock : IPacerClock
{
    private const int Probes = 5;

    private static readonly Lazy<SystemPacerClock> Shared = new(() => new SystemPacerClock(MeasureTick()));

    private SystemPacerClock(long tickNanoseconds) => TickNanoseconds = tickNanoseconds;

    /// <summary>The process's clock, its tick measured on first use.</summary>
    public static SystemPacerClock Instance => Shared.Value;

    public long TickNanoseconds { get; }

    public long NowNanoseconds() => MonotonicClock.NowNanoseconds();

    public void Sleep(long nanoseconds) => Thread.Sleep(Math.Max(1, (int)Math.Round(nanoseconds / 1e6)));

    private static long MeasureTick()
    {
        var elapsed = new long[Probes];
        for (var i = 0; i < Probes; i++)
        {
            var start = Stopwatch.GetTimestamp();
            Thread.Sleep(1);
            elapsed[i] = MonotonicClock.ToNanoseconds(Stopwatch.GetTimestamp() - start);
        }

        Array.Sort(elapsed);
        return Math.Max(1_000_000, elapsed[Probes / 2]);
    }
}
