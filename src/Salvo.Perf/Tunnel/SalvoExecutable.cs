using Salvo.Perf.Cli;

namespace Salvo.Perf.Tunnel;

/// <summary>How to run this same salvo again, for the processes a command starts: the apphost, or dotnet with the assembly it was started from.</summary>
internal static class SalvoExecutable
{
    /// <summary>The executable and the arguments before salvo's own; <paramref name="command"/> names the asking command in the error.</summary>
    public static string[] Command(string command)
    {
        var process = Environment.ProcessPath ?? throw new CliException($"{command}: cannot tell where the salvo executable is", CliException.FailureExitCode);
        return Path.GetFileNameWithoutExtension(process) == "dotnet" ? [process, Environment.GetCommandLineArgs()[0]] : [process];
    }
}
