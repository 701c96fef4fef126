using System.Diagnostics;
using System.Reflection;
using Salvo.Tests.Lab;

namespace Salvo.Docs.Tests;

/// <summary>Runs the dotnet CLI as a child process with a bounded wait; the process it starts is the only one it ends.</summary>
internal static class DotnetCli
{
    /// <summary>The configuration this test assembly was built in, for commands that reuse the build (<c>--no-build</c>).</summary>
    public static string Configuration { get; } =
        typeof(DotnetCli).Assembly.GetCustomAttribute<AssemblyConfigurationAttribute>()?.Configuration ?? "Release";

    /// <summary>The dotnet host running this test (the SDK's, under dotnet test), else the one on PATH.</summary>
    public static string Host { get; } = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet";

    /// <summary>
    /// Runs <c>dotnet <paramref name="arguments"/></c> in <paramref name="folder"/> with <paramref name="environment"/>
    /// added; returns the exit code and stdout and stderr together.
    /// </summary>
    public static (int ExitCode, string Output) Run(
        string folder, IEnumerable<string> arguments, IReadOnlyDictionary<string, string>? environment = null) =>
        RunProgram(Host, folder, arguments, environment);

    /// <summary>Runs <paramref name="program"/> as <see cref="Run"/> runs dotnet.</summary>
    public static (int ExitCode, string Output) RunProgram(
        string program, string folder, IEnumerable<string> arguments, IReadOnlyDictionary<string, string>? environment = null)
    {
        var start = new ProcessStartInfo(program)
        {
            WorkingDirectory = folder,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        // Under dotnet test these come from the outer build; a child CLI sets its own.
        foreach (var name in start.Environment.Keys.Where(name => name.StartsWith("MSBUILD", StringComparison.OrdinalIgnoreCase)).ToList())
        {
            start.Environment.Remove(name);
        }

        // No build nodes left running after the command (they would wait 15 minutes for another build).
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[name] = value;
        }

        // A restore that downloads or a build on a loaded 2-core machine takes a minute at worst.
        var bound = TimeSpan.FromMinutes(3);
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{program} did not start");
        var output = ProcessOutput.ReadToEndOnOwnThread(process.StandardOutput);
        var error = ProcessOutput.ReadToEndOnOwnThread(process.StandardError);
        if (!process.WaitForExit(bound))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{program} {string.Join(' ', start.ArgumentList)} ran past {bound.TotalSeconds} s");
        }

        process.WaitForExit();
        return (process.ExitCode, output.Result + error.Result);
    }
}
