using System.Runtime.InteropServices;

namespace Salvo.Perf.Native;

/// <summary>clock_nanosleep(2) on CLOCK_MONOTONIC: a sleep finer than Thread.Sleep's whole milliseconds.</summary>
internal static partial class Libc
{
    /// <summary>CLOCK_MONOTONIC (include/uapi/linux/time.h).</summary>
    public const int ClockMonotonic = 1;

    /// <summary>Returns 0, or the error number itself (not -1 and errno): EINTR when a signal cut the sleep short.</summary>
    [LibraryImport(Library, EntryPoint = "clock_nanosleep")]
    public static partial int ClockNanosleep(int clock, int flags, in Timespec request, IntPtr remaining);
}
