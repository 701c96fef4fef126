using System.Net;
using System.Net.Sockets;

namespace Salvo.Server;

/// <summary>
/// Keeps a server that does not share its port (<see cref="DatagramServerOptions.SharePort"/> false) off a port another
/// socket holds. SO_REUSEPORT alone cannot: the kernel lets any socket of the same effective UID that also sets it join the
/// group and then splits the traffic between them (udp_lib_lport_inuse, net/ipv4/udp.c), and with port 0 it may even pick
/// a port such a group already holds. So before the first worker binds, a probe socket without SO_REUSEPORT or
/// SO_REUSEADDR binds the endpoint: that bind fails with EADDRINUSE while anybody holds it, and for port 0 the kernel picks
/// a port nobody holds. The probe is closed and the first worker binds the same endpoint at once.
/// </summary>
/// <remarks>
/// Between the probe's close and the first worker's bind another program's server could pass the same check; servers of
/// this process take turns (one lock around probe and bind), so between them the check is race-free, and across processes
/// the window is two system calls wide. A race-free check across processes would need sock_diag to list the port's
/// sockets after binding, for a case a deployment avoids by giving each service its own port.
/// </remarks>
internal static class ExclusivePort
{
    private static readonly Lock s_binding = new();

    /// <summary>Probes <paramref name="endPoint"/> and, while no other server of this process can, binds the first worker to it.</summary>
    /// <exception cref="SocketException">Another socket holds the endpoint (<see cref="SocketError.AddressAlreadyInUse"/>, the endpoint named).</exception>
    public static DatagramSocket BindFirst(IPEndPoint endPoint, bool dualMode, Func<IPEndPoint, DatagramSocket> bind)
    {
        lock (s_binding)
        {
            // With port 0 the number is ours to choose: one another program took between the probe's close and the
            // worker's bind (seen once in a full test run, where other test processes bind port 0 all the time) is
            // given up and another probed, as a fixed port asked for by number is not.
            for (var attempt = 1; ; attempt++)
            {
                try
                {
                    return bind(Probe(endPoint, dualMode));
                }
                catch (SocketException e) when (endPoint.Port == 0 && attempt < AnyPortAttempts && e.SocketErrorCode == SocketError.AddressAlreadyInUse)
                {
                }
            }
        }
    }

    /// <summary>Probes tried for port 0 before the refusal is reported.</summary>
    private const int AnyPortAttempts = 16;

    /// <summary>The error for a port that is taken, naming it and the option that shares it.</summary>
    public static SocketException InUse(IPEndPoint endPoint) => new(
        (int)SocketError.AddressAlreadyInUse,
        $"{endPoint} is already in use by another socket; set DatagramServerOptions.SharePort to share it.");

    /// <summary>The endpoint a bind without port sharing gets: <paramref name="endPoint"/>, with the port the kernel chose for port 0.</summary>
    private static IPEndPoint Probe(IPEndPoint endPoint, bool dualMode)
    {
        using var probe = new Socket(endPoint.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        if (endPoint.AddressFamily == AddressFamily.InterNetworkV6)
        {
            // A dual-mode socket on [::] also holds the IPv4 wildcard's port: probe what the worker will hold.
            probe.DualMode = dualMode;
        }

        try
        {
            probe.Bind(endPoint);
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.AddressAlreadyInUse)
        {
            throw InUse(endPoint);
        }

        return (IPEndPoint)probe.LocalEndPoint!;
    }
}
