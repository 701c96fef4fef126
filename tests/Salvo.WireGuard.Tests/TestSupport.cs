using Salvo.Perf.Tests.Reliability;

namespace Salvo.WireGuard.Tests;

/// <summary>Runs the daemon's command line in-process with captured output.</summary>
internal static class Daemon
{
    /// <summary>The apphost the build puts beside the tests: one executable path, as WG_QUICK_USERSPACE_IMPLEMENTATION takes it.</summary>
    public static string Executable => Path.Combine(AppContext.BaseDirectory, "wireguard-salvo");

    /// <summary>The daemon's dll, for <c>dotnet wireguard-salvo.dll</c>.</summary>
    public static string Dll => Path.Combine(AppContext.BaseDirectory, "wireguard-salvo.dll");

    public static async Task<(int ExitCode, string Out, string Error)> RunAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var exit = await WireGuardCli.RunAsync(args, new DaemonConsole(output, error), CancellationToken.None);
        return (exit, output.ToString(), error.ToString());
    }
}

/// <summary>wireguard-salvo as a child process (<c>dotnet wireguard-salvo.dll ...</c>), its output in one live text.</summary>
internal static class DaemonChild
{
    public static SalvoChild Start(string[] args, bool interruptible = false, IReadOnlyList<string>? wrapper = null) =>
        SalvoChild.StartDll(Daemon.Dll, args, interruptible, wrapper);
}

/// <summary>A fact that needs Linux; skipped elsewhere with the reason.</summary>
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

/// <summary>A theory that needs Linux; skipped elsewhere with the reason.</summary>
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

/// <summary>Tests that hold fixed names (/var/run/wireguard, /run/salvo-tunnel) or time the whole process run alone.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class WholeProcessCollection
{
    public const string Name = "Whole process";
}
