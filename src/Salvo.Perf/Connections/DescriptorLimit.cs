using System.Runtime.InteropServices;

namespace Salvo.Perf.Connections;

/// <summary>
/// Raises the process's open-file limit for many connections: two descriptors per in-process connection
/// (both ends). Raising the hard limit needs CAP_SYS_RESOURCE (root); otherwise the soft limit goes as high
/// as the hard one allows and the shortfall is reported.
/// </summary>
internal static partial class DescriptorLimit
{
    private const int RlimitNoFile = 7;

    /// <summary>Tries to allow <paramref name="wanted"/> descriptors; returns the limit in force afterwards.</summary>
    public static long Ensure(long wanted)
    {
        if (!OperatingSystem.IsLinux())
        {
            return long.MaxValue;
        }

        var current = new Rlimit();
        if (GetRlimit(RlimitNoFile, ref current) != 0)
        {
            return 0;
        }

        if (current.Soft >= (ulong)wanted)
        {
            return (long)current.Soft;
        }

        var raised = new Rlimit { Soft = (ulong)wanted, Hard = Math.Max(current.Hard, (ulong)wanted) };
        if (SetRlimit(RlimitNoFile, ref raised) != 0)
        {
            raised = new Rlimit { Soft = current.Hard, Hard = current.Hard };
            _ = SetRlimit(RlimitNoFile, ref raised);
        }

        _ = GetRlimit(RlimitNoFile, ref current);
        return (long)current.Soft;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct Rlimit
    {
        public ulong Soft;
        public ulong Hard;
    }

    [LibraryImport("libc.so.6", EntryPoint = "getrlimit", SetLastError = true)]
    private static partial int GetRlimit(int resource, ref Rlimit limit);

    [LibraryImport("libc.so.6", EntryPoint = "setrlimit", SetLastError = true)]
    private static partial int SetRlimit(int resource, ref Rlimit limit);
}
