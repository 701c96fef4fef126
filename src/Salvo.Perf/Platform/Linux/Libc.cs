using System.Runtime.InteropServices;

namespace Salvo.Perf.Native;

/// <summary>
/// The few libc calls the measuring tool needs on Linux: per-thread CPU clocks and CPU affinity here, resource
/// limits beside it; epoll and plain send/recv in <see cref="Epoll"/>. All of the CLI's imports live in this folder.
/// </summary>
internal static partial class Libc
{
    private const string Library = "libc.so.6";

    /// <summary>clockid_t CLOCK_PROCESS_CPUTIME_ID (include/uapi/linux/time.h).</summary>
    public const int ClockProcessCpuTime = 2;

    /// <summary>clockid_t CLOCK_THREAD_CPUTIME_ID: user + system time of the calling thread only.</summary>
    public const int ClockThreadCpuTime = 3;

    [StructLayout(LayoutKind.Sequential)]
    public struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport(Library, EntryPoint = "clock_gettime", SetLastError = true)]
    public static partial int ClockGetTime(int clockId, out Timespec time);

    /// <summary>pid 0 means the calling thread: Linux affinity is per thread (sched_setaffinity(2)).</summary>
    [LibraryImport(Library, EntryPoint = "sched_setaffinity", SetLastError = true)]
    public static partial int SchedSetAffinity(int pid, nuint maskSize, ReadOnlySpan<ulong> mask);

    [LibraryImport(Library, EntryPoint = "sched_getaffinity", SetLastError = true)]
    public static partial int SchedGetAffinity(int pid, nuint maskSize, Span<ulong> mask);
}
