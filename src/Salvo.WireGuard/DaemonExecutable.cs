namespace Salvo.WireGuard;

/// <summary>
/// How to run wireguard-salvo again, for the detaching start: the path in <see cref="Variable"/> when set, this
/// process when it is wireguard-salvo (the apphost or a native build), else the wireguard-salvo beside this assembly:
/// its apphost, or dotnet with its dll (this process is 'dotnet wireguard-salvo.dll'). salvo finds the program the
/// same way with its own code (src/Salvo.Perf/Tunnel/DaemonProgram.cs).
/// </summary>
internal static class DaemonExecutable
{
    /// <summary>The program's name, as wg-quick's WG_QUICK_USERSPACE_IMPLEMENTATION takes it.</summary>
    public const string Name = "wireguard-salvo";

    /// <summary>The environment variable naming the executable to run instead, e.g. a native build elsewhere.</summary>
    public const string Variable = "WIREGUARD_SALVO";

    /// <summary>The executable and the arguments before the daemon's own.</summary>
    /// <exception cref="DaemonException">Neither the apphost nor the dll is where the build puts them.</exception>
    public static string[] Command()
    {
        if (Environment.GetEnvironmentVariable(Variable) is { Length: > 0 } chosen)
        {
            return [chosen];
        }

        var process = Environment.ProcessPath;
        if (process is not null && Path.GetFileName(process) == Name)
        {
            return [process];
        }

        var apphost = Path.Combine(AppContext.BaseDirectory, Name);
        if (File.Exists(apphost))
        {
            return [apphost];
        }

        var assembly = Path.Combine(AppContext.BaseDirectory, Name + ".dll");
        if (File.Exists(assembly))
        {
            var dotnet = process is not null && Path.GetFileNameWithoutExtension(process) == "dotnet" ? process : "dotnet";
            return [dotnet, assembly];
        }

        throw new DaemonException($"cannot find {Name} in {AppContext.BaseDirectory}", DaemonException.FailureExitCode);
    }
}
