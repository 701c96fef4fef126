using System.Diagnostics;
using Salvo.Perf.Native;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Measurement;

/// <summary>
/// CPU time consumed (user + system). On Linux per thread through CLOCK_THREAD_CPUTIME_ID, so the sender's
/// and the receiver's cost are told apart; elsewhere only the whole process is known.
/// </summary>
internal static class CpuClock
{
    /// <summary>Whether <see cref="CurrentThread"/> measures the calling thread alone.</summary>
    public static bool HasThreadClock { get; } = HostOs.IsLinux && Probe();

    /// <summary>CPU time of the calling thread, or of the whole process where no thread clock exists.</summary>
    public static TimeSpan CurrentThread() => HasThreadClock ? Read(Libc.ClockThreadCpuTime) : Process();

    /// <summary>CPU time of the whole process.</summary>
    public static TimeSpan Process()
    {
        if (HasThreadClock)
        {
            return Read(Libc.ClockProcessCpuTime);
        }

        using var process = System.Diagnostics.Process.GetCurrentProcess();
        return process.TotalProcessorTime;
    }

    /// <summary>CPU time as a percentage of one core over <paramref name="elapsed"/>.</summary>
    public static double Percent(TimeSpan cpu, TimeSpan elapsed) =>
        elapsed <= TimeSpan.Zero ? 0 : 100.0 * cpu.Ticks / elapsed.Ticks;

    private static TimeSpan Read(int clock)
    {
        _ = Libc.ClockGetTime(clock, out var time);
        return TimeSpan.FromTicks((time.Seconds * TimeSpan.TicksPerSecond) + (time.Nanoseconds / 100));
    }

    private static bool Probe()
    {
        try
        {
            return Libc.ClockGetTime(Libc.ClockThreadCpuTime, out _) == 0;
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            Trace.WriteLine($"No thread CPU clock: {e.Message}");
            return false;
        }
    }
}
