using System.Text.Json;

namespace Salvo.WireGuard.Status;

/// <summary><c>wireguard-salvo show [IFACE|all] [--json]</c>: the tunnels running <c>up</c> processes keep status files for.</summary>
internal static class ShowCommand
{
    public static int Run(ShowArguments arguments, DaemonConsole console)
    {
        if (arguments.Name is { } shown && TunInterfaceName.Problem(shown) is { } problem)
        {
            throw new DaemonException($"show: IFACE: {problem}");
        }

        var statuses = TunnelStatusFiles.Read(UpCommand.StatusFolder, arguments.Name);
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
}
