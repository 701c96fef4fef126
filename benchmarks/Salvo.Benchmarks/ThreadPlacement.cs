using System.Runtime.InteropServices;

namespace Salvo.Benchmarks;

/// <summary>Pins the calling thread to a core and reads its CPU time (Linux; no-ops elsewhere).</summary>
internal static partial class ThreadPlacement
{
    private const int RusageSelf = 0;
    private const int RusageThread = 1;

    public static void PinTo(int core)
    {
        if (!OperatingSystem.IsLinux() || core >= Environment.ProcessorCount)
        {
            return;
        }

        var mask = 1UL << core;
        _ = SchedSetAffinity(0, sizeof(ulong), ref mask);
    }

    /// <summary>User plus system CPU time of the calling thread.</summary>
    public static TimeSpan ThreadCpuTime() => CpuTime(RusageThread);

    /// <summary>User plus system CPU time of every thread of this process.</summary>
    public static TimeSpan ProcessCpuTime() => CpuTime(RusageSelf);

    private static TimeSpan CpuTime(int who)
    {
        if (!OperatingSystem.IsLinux())
        {
            return TimeSpan.Zero;
        }

        Span<long> usage = stackalloc long[18];
        unsafe
        {
            // Safety: struct rusage is 144 bytes on 64-bit Linux; the span holds 18 longs = 144 bytes.
            fixed (long* pointer = usage)
            {
                _ = GetRusage(who, pointer);
            }
        }

        // ru_utime and ru_stime are struct timeval { long sec; long usec; } at the start.
        return TimeSpan.FromMicroseconds((usage[0] * 1_000_000) + usage[1] + (usage[2] * 1_000_000) + usage[3]);
    }

    [LibraryImport("libc.so.6", EntryPoint = "sched_setaffinity")]
    private static partial int SchedSetAffinity(int pid, nint size, ref ulong mask);

    [LibraryImport("libc.so.6", EntryPoint = "getrusage")]
    // Safety: declaration only; the one caller passes a pinned 144-byte struct rusage.
    private static unsafe partial int GetRusage(int who, long* usage);
}
