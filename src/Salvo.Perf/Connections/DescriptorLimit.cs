using Salvo.Perf.Native;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Connections;

/// <summary>
/// Raises the process's open-file limit for many connections: two descriptors per in-process connection
/// (both ends). Raising the hard limit needs CAP_SYS_RESOURCE (root); otherwise the soft limit goes as high
/// as the hard one allows and the shortfall is reported.
/// </summary>
internal static class DescriptorLimit
{
    /// <summary>Tries to allow <paramref name="wanted"/> descriptors; returns the limit in force afterwards.</summary>
    public static long Ensure(long wanted)
    {
        if (!HostOs.IsLinux)
        {
            return long.MaxValue;
        }

        var current = new Libc.Rlimit();
        if (Libc.GetRlimit(Libc.RlimitNoFile, ref current) != 0)
        {
            return 0;
        }

        if (current.Soft >= (ulong)wanted)
        {
            return (long)current.Soft;
        }

        var raised = new Libc.Rlimit { Soft = (ulong)wanted, Hard = Math.Max(current.Hard, (ulong)wanted) };
        if (Libc.SetRlimit(Libc.RlimitNoFile, ref raised) != 0)
        {
            raised = new Libc.Rlimit { Soft = current.Hard, Hard = current.Hard };
            _ = Libc.SetRlimit(Libc.RlimitNoFile, ref raised);
        }

        _ = Libc.GetRlimit(Libc.RlimitNoFile, ref current);
        return (long)current.Soft;
    }
}
