using System.Diagnostics;
using Salvo.Perf.Native;
using Salvo.Perf.Protocol;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Pacing;

/// <summary>
/// The real clock, with the tick measured once per process (the median of five shortest sleeps). On Linux it sleeps
/// with clock_nanosleep for 100 us ticks (about 160 us measured on the guests here): with 1 ms ticks a stream at
/// 125 Mbit/s left in bursts of 12 datagrams, and a stock iperf3 receiving four such streams (-R, 500 Mbit/s each)
/// lost 1.4-1.9 % where iperf3's own sender, pacing in a busy loop, lost 0-0.2 %. Elsewhere
/// <see cref="Thread.Sleep(int)"/> in whole milliseconds (~15.6 ms on a default Windows timer).
/// </summary>
internal sealed class SystemPacerClock : IPacerClock
{
    private const int Probes = 5;
    private const long FinestNanoseconds = 100_000;

    private static readonly Lazy<SystemPacerClock> Shared = new(() => new SystemPacerClock(MeasureTick()));

    private SystemPacerClock(long tickNanoseconds) => TickNanoseconds = tickNanoseconds;

    /// <summary>The process's clock, its tick measured on first use.</summary>
    public static SystemPacerClock Instance => Shared.Value;

    public long TickNanoseconds { get; }

    public long NowNanoseconds() => MonotonicClock.NowNanoseconds();

    public void Sleep(long nanoseconds)
    {
        if (!HostOs.IsLinux)
        {
            Thread.Sleep(Math.Max(1, (int)Math.Round(nanoseconds / 1e6)));
            return;
        }

        // EINTR (a signal) ends the sleep early: the pacer looks at the clock again and sleeps what is left.
        var request = new Libc.Timespec { Seconds = nanoseconds / 1_000_000_000, Nanoseconds = Math.Max(nanoseconds, 1) % 1_000_000_000 };
        _ = Libc.ClockNanosleep(Libc.ClockMonotonic, 0, request, IntPtr.Zero);
    }

    private static long MeasureTick()
    {
        var probe = new SystemPacerClock(0);
        var elapsed = new long[Probes];
        for (var i = 0; i < Probes; i++)
        {
            var start = Stopwatch.GetTimestamp();
            probe.Sleep(HostOs.IsLinux ? FinestNanoseconds : 1_000_000);
            elapsed[i] = MonotonicClock.ToNanoseconds(Stopwatch.GetTimestamp() - start);
        }

        Array.Sort(elapsed);
        return Math.Max(HostOs.IsLinux ? FinestNanoseconds : 1_000_000, elapsed[Probes / 2]);
    }
}
