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

/// <summary>A theory that needs Linux (the batched backend); skipped elsewhere with the reason.</summary>
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
