namespace Salvo.Perf.Platform.Linux;

/// <summary>
/// The files under /proc and /sys the CLI reads (proc(5), sysfs(5)), each behind a small reader here so that nothing
/// else in the CLI names a path of the kernel's: text as it is, null where the file is not there (another OS, an older
/// kernel, a process that has ended).
/// </summary>
internal static class ProcFiles
{
    /// <summary>Whether a process with id <paramref name="pid"/> runs now (its /proc/PID folder is there).</summary>
    public static bool ProcessExists(string pid) => Directory.Exists($"/proc/{pid}");

    /// <summary>The text of /proc/PID/stat, or null when that process has ended.</summary>
    public static string? ProcessStat(int pid) => ReadAll($"/proc/{pid}/stat");

    /// <summary>The text of /proc/self/status (VmRSS and friends), or null.</summary>
    public static string? SelfStatus() => ReadAll("/proc/self/status");

    /// <summary>How many descriptors this process holds open (/proc/self/fd), or null where there is no such folder.</summary>
    public static int? SelfDescriptorCount()
    {
        try
        {
            return Directory.Exists("/proc/self/fd") ? Directory.EnumerateFileSystemEntries("/proc/self/fd").Count() : null;
        }
        catch (IOException)
        {
            return null;
        }
    }

    /// <summary>Each of this process's threads now: its name (/proc/self/task/TID/comm) and schedstat text, null where unreadable; none elsewhere.</summary>
    public static IEnumerable<(string? Name, string? Schedstat)> SelfThreads()
    {
        const string Tasks = "/proc/self/task";
        if (!Directory.Exists(Tasks))
        {
            yield break;
        }

        foreach (var folder in Directory.EnumerateDirectories(Tasks))
        {
            // A thread that ends while being read leaves nulls.
            yield return (ReadAll(Path.Combine(folder, "comm")), ReadAll(Path.Combine(folder, "schedstat")));
        }
    }

    /// <summary>The text of /proc/net/snmp (the kernel's protocol counters), or null.</summary>
    public static string? NetSnmp() => ReadAll("/proc/net/snmp");

    /// <summary>The text of /proc/cpuinfo, or null.</summary>
    public static string? CpuInfo() => ReadAll("/proc/cpuinfo");

    /// <summary>The first line of /proc/loadavg, or null.</summary>
    public static string? LoadAverage() => FirstLine("/proc/loadavg");

    /// <summary>Whether this is a kernel with /proc/sys (Linux).</summary>
    public static bool HasSysctls => File.Exists("/proc/sys/kernel/osrelease");

    /// <summary>The first line of the sysctl <paramref name="name"/> ("net/core/rmem_max", "kernel/osrelease"), or null.</summary>
    public static string? Sysctl(string name) => FirstLine($"/proc/sys/{name}");

    /// <summary>The network interfaces under /sys/class/net, by name; empty where there is no such folder.</summary>
    public static IReadOnlyList<string> NetworkInterfaces() =>
        Directory.Exists("/sys/class/net") ? [.. Directory.EnumerateDirectories("/sys/class/net").Select(Path.GetFileName).OfType<string>()] : [];

    /// <summary>The first line of /sys/class/net/DEVICE/<paramref name="attribute"/>, or null.</summary>
    public static string? NetworkInterfaceAttribute(string device, string attribute) => FirstLine($"/sys/class/net/{device}/{attribute}");

    /// <summary>The first line of <paramref name="path"/>, trimmed; null when it cannot be read.</summary>
    private static string? FirstLine(string path) => ReadAll(path) is { } text ? text.Split('\n')[0].Trim() : null;

    private static string? ReadAll(string path)
    {
        try
        {
            return File.Exists(path) ? File.ReadAllText(path) : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
