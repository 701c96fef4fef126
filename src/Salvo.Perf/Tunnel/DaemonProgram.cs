using Salvo.Perf.Cli;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// Where salvo finds the WireGuard daemon's program, wireguard-salvo, for the deprecated tunnel commands and for
/// 'salvo tunnel bench': the path in <see cref="Variable"/> when set, else the build beside salvo's own (the
/// Salvo.WireGuard project reference puts it there): its dll on the same dotnet host when salvo runs as
/// <c>dotnet Salvo.Perf.dll</c>, else its apphost, else its dll on the dotnet found on PATH.
/// </summary>
internal static class DaemonProgram
{
    /// <summary>The program's name, as wg-quick's WG_QUICK_USERSPACE_IMPLEMENTATION takes it.</summary>
    public const string Name = "wireguard-salvo";

    /// <summary>The environment variable naming the program to run instead, e.g. a native build elsewhere; the daemon reads the same one.</summary>
    public const string Variable = "WIREGUARD_SALVO";

    /// <summary>
    /// The folder the daemon writes each running tunnel's status file to, named after its interface: the fixed path
    /// docs/cli.md gives for 'wireguard-salvo up', defined in the daemon as UpCommand.StatusFolder.
    /// </summary>
    public const string StatusFolder = "/run/salvo-tunnel";

    /// <summary>The program and the arguments before the daemon's own.</summary>
    /// <exception cref="CliException">No daemon program where it was looked for (exit code 1).</exception>
    public static string[] Command() => Command(Environment.GetEnvironmentVariable(Variable), AppContext.BaseDirectory, Environment.ProcessPath);

    /// <summary>The program and the arguments before the daemon's own.</summary>
    /// <param name="chosen">The value of <see cref="Variable"/>, or null.</param>
    /// <param name="folder">The folder salvo's own build is in.</param>
    /// <param name="host">This process's executable: the dotnet host when salvo runs as <c>dotnet Salvo.Perf.dll</c>.</param>
    /// <exception cref="CliException">No daemon program where it was looked for (exit code 1).</exception>
    public static string[] Command(string? chosen, string folder, string? host)
    {
        if (!string.IsNullOrEmpty(chosen))
        {
            return File.Exists(chosen)
                ? [chosen]
                : throw new CliException($"cannot find the WireGuard daemon's program: no file '{chosen}' ({Variable})", CliException.FailureExitCode);
        }

        var apphost = Path.Combine(folder, Name);
        var assembly = Path.Combine(folder, Name + ".dll");
        if (host is not null && Path.GetFileNameWithoutExtension(host) == "dotnet" && File.Exists(assembly))
        {
            // salvo runs as 'dotnet Salvo.Perf.dll': the daemon on the same host and runtime.
            return [host, assembly];
        }

        if (File.Exists(apphost))
        {
            return [apphost];
        }

        if (File.Exists(assembly))
        {
            // A bare name is looked up on PATH.
            return ["dotnet", assembly];
        }

        throw new CliException($"cannot find the WireGuard daemon's program: neither '{apphost}' nor '{assembly}' exists (set {Variable} to its path)", CliException.FailureExitCode);
    }
}
