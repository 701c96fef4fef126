using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests;

/// <summary>Runs the CLI in-process with captured output.</summary>
internal static class Cli
{
    public static async Task<(int ExitCode, string Out, string Error)> RunAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var exit = await SalvoCli.RunAsync(args, new CliConsole(output, error, isTerminal: false));
        return (exit, output.ToString(), error.ToString());
    }
}

/// <summary>A made-up host for reports built in a test.</summary>
internal static class TestHost
{
    public static Salvo.Perf.Measurement.EnvironmentInfo Environment(string? loadAverage = null) =>
        new("Linux", "6.1", "test CPU", 2, ".NET 10", "2026-01-01T00:00:00Z", loadAverage);
}

/// <summary>A fact that needs Linux (/proc, sched_setaffinity); skipped elsewhere with the reason.</summary>
public sealed class LinuxOnlyFactAttribute : FactAttribute
{
    public LinuxOnlyFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux.";
        }
    }
}

/// <summary>A theory that needs Linux (the batched backend, /proc); skipped elsewhere with the reason.</summary>
public sealed class LinuxOnlyTheoryAttribute : TheoryAttribute
{
    public LinuxOnlyTheoryAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux.";
        }
    }
}

/// <summary>Tests that measure the whole process (allocations, CPU) or use fixed ports run alone.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class WholeProcessCollection
{
    public const string Name = "Whole process";
}

/// <summary>A fact about placing threads on two different CPUs: needs Linux and two CPUs this process may use.</summary>
public sealed class TwoCpuLinuxFactAttribute : FactAttribute
{
    public TwoCpuLinuxFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux (sched_setaffinity).";
        }
        else if (Salvo.Perf.Measurement.CpuAffinity.AllowedCpus().Count < 2)
        {
            Skip = "Needs two CPUs this process may run on.";
        }
    }
}

/// <summary>A fact that runs Linux commands (ss, ip, kill); skipped with the reason where one is not on PATH.</summary>
public sealed class LinuxCommandsFactAttribute : FactAttribute
{
    public LinuxCommandsFactAttribute(params string[] commands)
    {
        var missing = commands.Where(c => !OnPath(c)).ToArray();
        Skip = !OperatingSystem.IsLinux() ? "Needs Linux."
            : missing.Length > 0 ? $"Needs {string.Join(", ", missing)} on PATH (Debian: iproute2, procps)."
            : null;
    }

    /// <summary>Whether <paramref name="command"/> is an executable file in a folder on PATH.</summary>
    public static bool OnPath(string command) => (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
        .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Any(folder => File.Exists(Path.Combine(folder, command)));
}
