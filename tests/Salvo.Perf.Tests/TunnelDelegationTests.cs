using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using Salvo.Perf.Cli;
using Salvo.Perf.Tunnel;

namespace Salvo.Perf.Tests;

/// <summary>
/// 'salvo tunnel up/show/userspace' still work for this release: each says once that it is deprecated, naming the
/// daemon's own program, and hands its process over to that program (exec), so the daemon's output, exit code and
/// signals are salvo's. salvo is run here as a program of its own (<c>dotnet Salvo.Perf.dll</c>), as a user runs it.
/// </summary>
public sealed class TunnelDelegationTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [Fact]
    public void TunnelUp_MissingConfig_NamesTheDaemonAndRunsItsProgram()
    {
        var missing = Path.Combine(Path.GetTempPath(), $"salvo-absent-{Environment.ProcessId}.conf");

        var (exit, _, error) = RunSalvo(["tunnel", "up", missing]);

        Assert.Equal(2, exit);
        Assert.StartsWith("salvo: 'salvo tunnel up' is deprecated and will be removed: use 'wireguard-salvo up'", error, StringComparison.Ordinal);
        Assert.Contains($"wireguard-salvo: error: up: CONFIG: no such file '{missing}'", error, StringComparison.Ordinal);
    }

    [Fact]
    public void TunnelShow_NoSuchTunnel_IsTheDaemonsErrorWithItsExitCode()
    {
        var (exit, output, error) = RunSalvo(["tunnel", "show", $"sd{Environment.ProcessId % 100_000}x"]);

        Assert.Equal(1, exit);
        Assert.Empty(output);
        Assert.Contains("use 'wireguard-salvo show'", error, StringComparison.Ordinal);
        Assert.Contains("show: IFACE: no running tunnel", error, StringComparison.Ordinal);
    }

    [Fact]
    public void TunnelUserspace_BadName_NamesTheDaemonsCommandLine()
    {
        var (exit, _, error) = RunSalvo(["tunnel", "userspace", "wg%d"]);

        Assert.Equal(2, exit);
        Assert.Contains("use 'wireguard-salvo [-f] IFACE'", error, StringComparison.Ordinal);
        Assert.Contains("IFACE: 'wg%d' holds '%'", error, StringComparison.Ordinal);
    }

    /// <summary>
    /// The program WIREGUARD_SALVO names, a script here, is what runs: in salvo's own process (the same process id),
    /// with the daemon's arguments, writing to salvo's standard output, its exit code salvo's. Before, salvo ran the
    /// daemon's code in-process whatever the variable said.
    /// </summary>
    [RequiresFact(Requirement.Linux)]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void TunnelUp_RunsTheNamedProgramInSalvosPlace_WithItsArgumentsOutputAndExitCode()
    {
        var folder = Directory.CreateTempSubdirectory("salvo-daemon-").FullName;
        try
        {
            var program = Path.Combine(folder, "wireguard-salvo");
            File.WriteAllText(program, "#!/bin/sh\necho \"arguments: $*\"\necho \"process: $$\"\nexit 7\n");
            File.SetUnixFileMode(program, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
            var config = Path.Combine(folder, "salvo0.conf");

            var (exit, output, error, pid) = RunSalvoWithId(["tunnel", "up", config, "--name", "t0", "-t", "2"], new() { [DaemonProgram.Variable] = program });

            Assert.Equal(7, exit);
            Assert.Contains($"arguments: up {config} --name t0 --time 2", output, StringComparison.Ordinal);
            Assert.Contains($"process: {pid.ToString(CultureInfo.InvariantCulture)}", output, StringComparison.Ordinal);
            Assert.StartsWith("salvo: 'salvo tunnel up' is deprecated", error, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public void TunnelShow_NoDaemonProgram_NamesThePathLookedForAndExitsOne()
    {
        var missing = Path.Combine(Path.GetTempPath(), $"salvo-no-daemon-{Environment.ProcessId}");

        var (exit, output, error) = RunSalvo(["tunnel", "show"], new() { [DaemonProgram.Variable] = missing });

        Assert.Equal(1, exit);
        Assert.Empty(output);
        Assert.Equal($"salvo: error: cannot find the WireGuard daemon's program: no file '{missing}' (WIREGUARD_SALVO)", error.Trim());
    }

    [Fact]
    public void DaemonProgram_RunByDotnet_IsTheDllOnTheSameHost()
    {
        var folder = Directory.CreateTempSubdirectory("salvo-daemon-").FullName;
        try
        {
            File.WriteAllText(Path.Combine(folder, "wireguard-salvo"), string.Empty);
            File.WriteAllText(Path.Combine(folder, "wireguard-salvo.dll"), string.Empty);

            Assert.Equal(["/opt/dotnet/dotnet", Path.Combine(folder, "wireguard-salvo.dll")], DaemonProgram.Command(null, folder, "/opt/dotnet/dotnet"));
            Assert.Equal([Path.Combine(folder, "wireguard-salvo")], DaemonProgram.Command(null, folder, "/usr/local/bin/salvo"));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public void DaemonProgram_NoneBesideSalvo_NamesBothPathsLookedFor()
    {
        var folder = Directory.CreateTempSubdirectory("salvo-daemon-").FullName;
        try
        {
            var error = Assert.Throws<CliException>(() => DaemonProgram.Command(null, folder, "/usr/bin/dotnet"));

            Assert.Equal(CliException.FailureExitCode, error.ExitCode);
            Assert.Contains(Path.Combine(folder, "wireguard-salvo"), error.Message, StringComparison.Ordinal);
            Assert.Contains(Path.Combine(folder, "wireguard-salvo.dll"), error.Message, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public async Task TunnelShow_OnAnotherProcesssConsole_RefusesRatherThanReplaceThatProcess()
    {
        var (exit, _, error) = await Cli.RunAsync("tunnel", "show");

        Assert.Equal(1, exit);
        Assert.Contains("only as salvo's own process", error, StringComparison.Ordinal);
    }

    /// <summary>salvo reaches the daemon only as a program: the daemon grants it no internals and has no public types to call.</summary>
    [Fact]
    public void Daemon_GrantsSalvoNoInternalsAndExportsNoTypes()
    {
        var daemon = Assembly.LoadFrom(Path.Combine(AppContext.BaseDirectory, "wireguard-salvo.dll"));

        var granted = daemon.GetCustomAttributes<InternalsVisibleToAttribute>().Select(a => a.AssemblyName).ToList();

        Assert.Equal(["Salvo.WireGuard.Tests"], granted);
        Assert.Empty(daemon.GetExportedTypes());
    }

    private static (int Exit, string Output, string Error) RunSalvo(string[] args, Dictionary<string, string>? environment = null)
    {
        var (exit, output, error, _) = RunSalvoWithId(args, environment ?? []);
        return (exit, output, error);
    }

    /// <summary>Runs <c>dotnet Salvo.Perf.dll <paramref name="args"/></c> to its end (bounded); its exit code, standard output, standard error and process id.</summary>
    private static (int Exit, string Output, string Error, int Id) RunSalvoWithId(string[] args, Dictionary<string, string> environment)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Salvo.Perf.dll"));
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        // The test run's own choice of daemon, if any, is not the one under test.
        start.Environment.Remove(DaemonProgram.Variable);
        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        using var process = Process.Start(start)!;
        process.StandardInput.Close();
        var output = Salvo.Tests.Lab.ProcessOutput.ReadToEndOnOwnThread(process.StandardOutput);
        var error = Salvo.Tests.Lab.ProcessOutput.ReadToEndOnOwnThread(process.StandardError);
        if (!process.WaitForExit(Bound))
        {
            process.Kill();
            Assert.Fail($"salvo {string.Join(' ', args)} did not end within {Bound.TotalSeconds} s");
        }

        process.WaitForExit();
        return (process.ExitCode, output.GetAwaiter().GetResult(), error.GetAwaiter().GetResult(), process.Id);
    }
}
