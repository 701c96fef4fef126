using System.Globalization;
using System.Reflection;
using Salvo.WireGuard.Status;
using Salvo.WireGuard.Userspace;

namespace Salvo.WireGuard;

/// <summary>
/// The daemon's command line, a few verbs parsed by hand (nothing reflected on, so a native build needs no trimming
/// hints): <c>up CONFIG</c>, <c>show [IFACE|all]</c>, and wireguard-go's own <c>[-f|--foreground] IFACE</c>, which
/// is how wg-quick runs a user-space implementation. A verb wins over an interface of the same name.
/// </summary>
internal static class WireGuardCli
{
    public const string Usage =
        "Usage:\n" +
        "  wireguard-salvo [-f|--foreground] IFACE     as wireguard-go: create IFACE with its wg control socket (wg-quick runs this)\n" +
        "  wireguard-salvo up CONFIG [--name NAME] [-t|--time SECONDS]\n" +
        "                                              bring a wg-quick file's tunnel up: addresses, MTU, routes; until a stop signal\n" +
        "        [--metrics-listen [ADDR:]PORT]        serve Prometheus metrics on GET /metrics (PORT alone: 127.0.0.1)\n" +
        "        [--metrics-per-peer]                  each peer's series even above 1,000 peers (by default only tunnel-wide ones there)\n" +
        "  wireguard-salvo show [IFACE|all] [--json]   every tunnel of this namespace through its wg socket (root): wg's fields, drops, peers not answering\n" +
        "  wireguard-salvo --help | --version\n";

    /// <summary>Runs <paramref name="args"/>; returns the exit code. Errors are one line on standard error.</summary>
    public static async Task<int> RunAsync(string[] args, DaemonConsole console, CancellationToken stop)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(console);
        try
        {
            return args switch
            {
                [] => throw new DaemonException("give an interface name or a command"),
                ["-h" or "--help" or "help", ..] => Help(console),
                ["--version" or "version"] => Version(console),
                ["up", .. var rest] => await UpCommand.RunAsync(UpArguments.Parse(rest), console, stop).ConfigureAwait(false),
                ["show", .. var rest] => ShowCommand.Run(ShowArguments.Parse(rest), console),
                _ => await UserspaceCommand.RunAsync(UserspaceArguments.Parse(args), console, stop).ConfigureAwait(false),
            };
        }
        catch (DaemonException e)
        {
            console.Note($"{DaemonExecutable.Name}: error: {e.Message}");
            if (e.ExitCode == DaemonException.UsageExitCode)
            {
                console.Note($"(see '{DaemonExecutable.Name} --help')");
            }

            return e.ExitCode;
        }
    }

    private static int Help(DaemonConsole console)
    {
        console.Out.Write(Usage);
        return 0;
    }

    private static int Version(DaemonConsole console)
    {
        var version = typeof(WireGuardCli).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "unknown";
        console.Out.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{DaemonExecutable.Name} {version}"));
        return 0;
    }
}
