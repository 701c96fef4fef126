using System.Net;

namespace Salvo.Pal;

/// <summary>
/// What an AF_XDP socket cannot share or bind, stated once: the backend's own refusals, the server's options
/// (through <see cref="Platform"/>) and the CLI (through the options' messages) all say it in these words.
/// </summary>
internal static class AfXdpLimits
{
    /// <summary>
    /// Why one socket serves a port alone: the XDP program redirects every datagram to the port into the socket bound to the
    /// frame's receive queue, each queue takes one AF_XDP socket (xsk_bind in net/xdp/xsk.c answers EBUSY for a second), and
    /// SO_REUSEPORT never sees the redirected frames.
    /// </summary>
    public const string OneSocketPerInterface =
        "one AF_XDP socket serves every receive queue of the interface, so a second socket on it cannot bind them";

    /// <summary>Null when <paramref name="address"/> can be one interface's own; otherwise why AF_XDP cannot bind it.</summary>
    public static string? RefuseAddress(IPAddress address) =>
        address.Equals(IPAddress.Any) || address.Equals(IPAddress.IPv6Any) || IPAddress.IsLoopback(address)
            ? $"must be the address of one network interface (was {address}): the XDP program and the AF_XDP sockets live on that interface"
            : null;
}
