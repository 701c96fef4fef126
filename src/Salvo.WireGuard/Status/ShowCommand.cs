using System.Text.Json;
using Salvo.Tunnel.Control;
using Salvo.WireGuard.Linux;

namespace Salvo.WireGuard.Status;

/// <summary>
/// <c>wireguard-salvo show [IFACE|all] [--json]</c>: every tunnel with a wg control socket in
/// /var/run/wireguard whose daemon runs in this network namespace (Salvo's, wg-quick's and wireguard-go's alike),
/// read through that socket as <c>wg show</c> reads it, with Salvo's own counters from <c>get=salvo</c> where the
/// daemon is Salvo's.
/// </summary>
internal static class ShowCommand
{
    public static int Run(ShowArguments arguments, DaemonConsole console) =>
        Run(arguments, console, WireGuardControlSocket.DefaultDirectory);

    internal static int Run(ShowArguments arguments, DaemonConsole console, string folder)
    {
        if (arguments.Name is { } shown && TunInterfaceName.Problem(shown) is { } problem)
        {
            throw new DaemonException($"show: IFACE: {problem}");
        }

        var statuses = Read(folder, arguments.Name, DateTimeOffset.UtcNow);
        if (arguments.Json)
        {
            console.Out.WriteLine(JsonSerializer.Serialize(statuses, StatusJson.Indented.IReadOnlyListTunnelStatusDocument));
        }
        else
        {
            var now = DateTimeOffset.UtcNow;
            console.Out.Write(string.Concat(statuses.Select(status => TunnelStatusText.Format(status, now))));
        }

        return 0;
    }

    /// <summary>
    /// Every tunnel of this namespace in name order, or only <paramref name="only"/>; asking for one that does not run
    /// here is an error (exit code 1, as <c>wg show</c>), so a typo is not mistaken for a stopped tunnel.
    /// </summary>
    internal static IReadOnlyList<TunnelStatusDocument> Read(string folder, string? only, DateTimeOffset now)
    {
        var names = only is not null
            ? [only]
            : Directory.Exists(folder)
                ? Directory.GetFiles(folder, "*.sock").Select(Path.GetFileNameWithoutExtension).OfType<string>()
                    .Where(name => TunInterfaceName.Problem(name) is null).Order(StringComparer.Ordinal).ToList()
                : [];
        var ownNamespace = PeerNetworkNamespace.Own();
        var statuses = new List<TunnelStatusDocument>();
        foreach (var name in names)
        {
            var status = ReadOne(Path.Combine(folder, name + ".sock"), name, ownNamespace, now, out var notHere);
            if (status is not null)
            {
                statuses.Add(status);
            }
            else if (only is not null)
            {
                throw new DaemonException($"show: IFACE: no running tunnel '{only}'{notHere}", DaemonException.FailureExitCode);
            }
        }

        return statuses;
    }

    /// <summary>One tunnel; null when nobody answers on its socket or its daemon runs in another namespace (then <paramref name="notHere"/> says which).</summary>
    private static TunnelStatusDocument? ReadOne(string path, string name, string? ownNamespace, DateTimeOffset now, out string notHere)
    {
        notHere = string.Empty;
        if (!File.Exists(path))
        {
            return null;
        }

        using var session = ControlSocketSession.Connect(path);
        if (session is null)
        {
            return null;
        }

        var pid = session.DaemonProcess;
        var daemonNamespace = pid is { } known ? PeerNetworkNamespace.Of(known.ToString(System.Globalization.CultureInfo.InvariantCulture)) : null;
        if (ownNamespace is not null && daemonNamespace is not null && daemonNamespace != ownNamespace)
        {
            notHere = $" in this network namespace ({ownNamespace}); the one on {path} runs in {daemonNamespace} (pid {pid}): run show there, e.g. 'ip netns exec NAME {DaemonExecutable.Name} show {name}'";
            return null;
        }

        var get = session.Request("get=1", name)
            ?? throw new DaemonException($"show: {name}: the daemon on {path} closed the connection without answering get=1", DaemonException.FailureExitCode);
        var salvo = session.Request("get=salvo", name);
        return ControlSocketAnswer.ToDocument(name, get, salvo, now);
    }
}
