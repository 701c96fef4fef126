using Salvo.Perf.Cli;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Measurement;

/// <summary>
/// Chooses the two CPUs a two-ended measurement pins its ends to: by default the first two CPUs this process
/// may run on, so the ends never share a core (on a 2-core machine, sharing one turns a cross-core wake-up into
/// a same-core hand-off and changes a request/response figure eightfold).
/// </summary>
internal static class CpuPlacement
{
    /// <summary>
    /// The CPUs for the first and second end, or nulls when pinning is off, impossible (not Linux) or pointless
    /// (one allowed CPU and no explicit choice). A requested CPU of -1 means "choose"; a requested CPU this
    /// process may not use fails, naming its option.
    /// </summary>
    public static (int? First, int? Second) Choose(bool noPin, (int Cpu, string Option) first, (int Cpu, string Option) second) =>
        Choose(noPin, first, second, HostOs.IsLinux ? CpuAffinity.AllowedCpus() : null);

    /// <summary><see cref="Choose(bool, ValueTuple{int, string}, ValueTuple{int, string})"/> over a given set of allowed CPUs (null: pinning unavailable).</summary>
    public static (int? First, int? Second) Choose(bool noPin, (int Cpu, string Option) first, (int Cpu, string Option) second, IReadOnlyList<int>? allowed)
    {
        if (noPin || allowed is null)
        {
            return (null, null);
        }

        foreach (var (cpu, option) in new[] { first, second })
        {
            if (cpu >= 0 && !allowed.Contains(cpu))
            {
                throw new CliException($"{option}: CPU {cpu} is not one this process may run on ({string.Join(',', allowed)}).");
            }
        }

        if (allowed.Count < 2 && (first.Cpu < 0 || second.Cpu < 0))
        {
            return (null, null);
        }

        var a = first.Cpu >= 0 ? first.Cpu : second.Cpu == allowed[0] ? allowed[1] : allowed[0];
        var b = second.Cpu >= 0 ? second.Cpu : allowed.First(c => c != a);
        return (a, b);
    }

    /// <summary>A phrase for the report: where the two ends ran.</summary>
    public static string Describe(int? first, string firstName, int? second, string secondName) =>
        first is null && second is null
            ? "not pinned (the scheduler placed the threads)"
            : $"{firstName} pinned to CPU {Show(first)}, {secondName} to CPU {Show(second)}";

    private static string Show(int? cpu) => cpu?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "(any)";
}
