using System.Globalization;
using Salvo.Tunnel.Control;
using Salvo.WireGuard.Linux;
using Salvo.WireGuard.Status;

namespace Salvo.WireGuard;

/// <summary>
/// Before a tunnel is made: /var/run/wireguard is one folder for every network namespace of the host, so two
/// same-named tunnels in different namespaces would share one socket path, and <c>wg</c> run in either would reach the
/// other's daemon. A path a live daemon in another namespace answers on is refused, naming both namespaces.
/// </summary>
internal static class ControlSocketClaim
{
    /// <summary>Throws when <paramref name="interfaceName"/>'s socket is held by a live daemon in another network namespace.</summary>
    public static void RefuseIfHeldElsewhere(string command, string interfaceName) =>
        RefuseIfHeldElsewhere(command, interfaceName, WireGuardControlSocket.PathFor(interfaceName));

    internal static void RefuseIfHeldElsewhere(string command, string interfaceName, string path)
    {
        if (!File.Exists(path))
        {
            return;
        }

        ControlSocketSession? session;
        try
        {
            session = ControlSocketSession.Connect(path);
        }
        catch (Exception e) when (e is DaemonException or IOException or System.Net.Sockets.SocketException)
        {
            // Not ours to judge (not root, or not a socket): starting the control socket reports it.
            return;
        }

        using (session)
        {
            var pid = session?.DaemonProcess;
            var theirs = pid is { } p ? PeerNetworkNamespace.Of(p.ToString(CultureInfo.InvariantCulture)) : null;
            var ours = PeerNetworkNamespace.Own();
            if (theirs is not null && ours is not null && theirs != ours)
            {
                throw new DaemonException(
                    $"{command}: {interfaceName}: the wg control socket {path} is held by a live daemon (pid {pid}) in network namespace {theirs}; " +
                    $"this one is {ours}, and one socket path cannot serve both: stop that tunnel or give this one another name",
                    DaemonException.FailureExitCode);
            }
        }
    }
}
