using Salvo.Perf.Cli;
using Salvo.WireGuard;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// The deprecated <c>salvo tunnel up/show/userspace</c>: one note naming the daemon's own program, then the daemon's
/// command, run in this process (its build lands beside salvo's) with this command's output and stop signals.
/// </summary>
internal static class WireGuardDaemon
{
    public static async Task<int> RunAsync(CliConsole console, string command, IReadOnlyList<string> arguments, CancellationToken stop)
    {
        var replacement = command == "userspace" ? "wireguard-salvo [-f] IFACE" : $"wireguard-salvo {command}";
        console.Note($"salvo: 'salvo tunnel {command}' is deprecated and will be removed: use '{replacement}', the WireGuard daemon's own program");
        return await WireGuardCli.RunAsync([.. arguments], new DaemonConsole(console.Out, console.Error), stop).ConfigureAwait(false);
    }
}
