using System.Runtime.InteropServices;
using Salvo.Perf.Native;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Measurement;

/// <summary>
/// Pins the calling thread to one CPU. .NET has no per-thread affinity API (Process.ProcessorAffinity is
/// process-wide), so on Linux this calls sched_setaffinity(0, ...) from the thread itself: pid 0 is the
/// calling thread. Elsewhere pinning is reported as unavailable.
/// </summary>
internal static class CpuAffinity
{
    private const int MaskWords = 16; // 1,024 CPUs, the glibc cpu_set_t size.

    /// <summary>The CPUs this process may run on, in ascending order; every CPU when unknown.</summary>
    public static IReadOnlyList<int> AllowedCpus()
    {
        if (HostOs.IsLinux)
        {
            Span<ulong> mask = stackalloc ulong[MaskWords];
            try
            {
                if (Libc.SchedGetAffinity(0, MaskWords * sizeof(ulong), mask) == 0)
                {
                    var cpus = new List<int>();
                    for (var cpu = 0; cpu < MaskWords * 64; cpu++)
                    {
                        if ((mask[cpu / 64] & (1UL << (cpu % 64))) != 0)
                        {
                            cpus.Add(cpu);
                        }
                    }

                    return cpus;
                }
            }
            catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
            {
                // Fall through to every CPU.
            }
        }

        return Enumerable.Range(0, Environment.ProcessorCount).ToArray();
    }

    /// <summary>Pins the calling thread to <paramref name="cpu"/>; returns false (and why) when it cannot.</summary>
    public static bool TryPinCurrentThread(int cpu, out string? reason)
    {
        if (!HostOs.IsLinux)
        {
            reason = "thread pinning needs Linux (sched_setaffinity)";
            return false;
        }

        if (cpu is < 0 or >= MaskWords * 64)
        {
            reason = $"CPU {cpu} is outside 0..{(MaskWords * 64) - 1}";
            return false;
        }

        Span<ulong> mask = stackalloc ulong[MaskWords];
        mask[cpu / 64] = 1UL << (cpu % 64);
        if (Libc.SchedSetAffinity(0, MaskWords * sizeof(ulong), mask) != 0)
        {
            reason = $"sched_setaffinity to CPU {cpu} failed (errno {Marshal.GetLastPInvokeError()})";
            return false;
        }

        reason = null;
        return true;
    }
}
