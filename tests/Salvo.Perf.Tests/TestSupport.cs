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

/// <summary>Tests that measure the whole process (allocations, CPU) or use fixed ports run alone.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class WholeProcessCollection
{
    public const string Name = "Whole process";
}
