using System.Globalization;
using Salvo.Perf.Platform;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// What the processes at the ends of a tunnel spent during one run: CPU seconds from /proc/PID/stat (user + system,
/// fields 14 and 15, proc(5)) before and after, and system calls counted by perf on the raw_syscalls:sys_enter
/// tracepoint over the run where perf is installed. The packets the run carried come from its bytes.
/// </summary>
internal sealed class ProcessCost
{
    /// <summary>USER_HZ, the unit of utime and stime: 100 on x86-64 and arm64 (include/asm-generic/param.h).</summary>
    private const double TicksPerSecond = 100;

    private readonly IReadOnlyList<int> _processIds;
    private readonly double _cpuBefore;
    private readonly ChildProcess? _perf;

    private ProcessCost(IReadOnlyList<int> processIds, int seconds)
    {
        _processIds = processIds;
        _cpuBefore = CpuSeconds(processIds);
        if (BenchTools.Find("perf") is { } perf && processIds.Count > 0)
        {
            _perf = ChildProcess.Start(perf, ["stat", "-x", ",", "-e", "raw_syscalls:sys_enter", "-p", string.Join(',', processIds), "--", "sleep", seconds.ToString(CultureInfo.InvariantCulture)]);
        }
    }

    /// <summary>Starts counting for the processes <paramref name="processIds"/> (none for the plain veth) over a run of <paramref name="seconds"/>.</summary>
    public static ProcessCost Start(IReadOnlyList<int> processIds, int seconds) => new(processIds, seconds);

    /// <summary>CPU seconds of both ends per gigabit carried, and system calls per packet; null where there is nothing to count.</summary>
    public (double? CpuSecondsPerGigabit, double? SyscallsPerPacket) Finish(double megabitsPerSecond, int seconds, int packetPayload)
    {
        if (_processIds.Count == 0)
        {
            return (null, null);
        }

        var cpu = CpuSeconds(_processIds) - _cpuBefore;
        var gigabits = megabitsPerSecond * seconds / 1_000;
        var packets = megabitsPerSecond * 1e6 * seconds / 8 / packetPayload;
        double? calls = null;
        if (_perf is not null)
        {
            calls = _perf.WaitForExit(TimeSpan.FromSeconds(10), CancellationToken.None) is { } output ? ParsePerfCount(output) : null;
            _perf.Dispose();
        }

        return (gigabits > 0 ? cpu / gigabits : null, calls is { } count && packets > 0 ? count / packets : null);
    }

    /// <summary>utime + stime of one process in seconds, from the text of /proc/PID/stat; 0 when it is not there.</summary>
    public static double ParseCpuSeconds(string stat)
    {
        // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
        var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return (long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture)) / TicksPerSecond;
    }

    /// <summary>The count from perf stat -x , output ("count,,event,..."); null when perf counted nothing (not supported, no permission).</summary>
    public static double? ParsePerfCount(string output)
    {
        var line = output.Split('\n').FirstOrDefault(l => l.Contains(",raw_syscalls:sys_enter", StringComparison.Ordinal));
        var first = line?.Split(',')[0];
        return double.TryParse(first, NumberStyles.Float, CultureInfo.InvariantCulture, out var count) ? count : null;
    }

    private static double CpuSeconds(IReadOnlyList<int> processIds) =>
        processIds.Sum(pid => ProcFiles.ProcessStat(pid) is { } stat ? ParseCpuSeconds(stat) : 0);
}
