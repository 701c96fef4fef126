using System.Net;
using System.Runtime.Versioning;

namespace Salvo.Pal;

/// <summary>Where a frame to one destination goes: out of which interface, from which Ethernet address, to which.</summary>
/// <param name="Interface">The interface the kernel routes the destination through.</param>
/// <param name="NextHop">The destination itself when on-link, else the route's gateway.</param>
/// <param name="NextHopMac">The next hop's Ethernet address, from the neighbour table.</param>
/// <param name="PreferredSource">The source address the kernel would pick, if it names one.</param>
internal sealed record LinkLayerPath(NetworkInterfaceInfo Interface, IPAddress NextHop, MacAddress NextHopMac, IPAddress? PreferredSource);

/// <summary>
/// The kernel's own answers for framing datagrams outside its stack: the interface holding a local address
/// (RTM_GETADDR), the route to a destination (RTM_GETROUTE) and the next hop's Ethernet address (RTM_GETNEIGH). An
/// unknown neighbour is refused with what to do about it, not resolved here: resolving would mean sending on the
/// application's behalf. All lookups run in the calling thread's network namespace.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class NeighbourLookup
{
    /// <summary>The interface that holds <paramref name="local"/>.</summary>
    /// <exception cref="InvalidOperationException">No interface in this network namespace has the address.</exception>
    public static NetworkInterfaceInfo InterfaceOf(IPAddress local)
    {
        using var netlink = RouteNetlink.Open();
        return InterfaceOf(netlink, local);
    }

    /// <summary>The interface that holds <paramref name="local"/>, asked on an open netlink socket (of the namespace it was opened in).</summary>
    /// <exception cref="InvalidOperationException">No interface in that network namespace has the address.</exception>
    public static NetworkInterfaceInfo InterfaceOf(RouteNetlink netlink, IPAddress local)
    {
        var index = netlink.FindInterfaceOf(local);
        return (index > 0 ? netlink.GetLink(index) : null)
            ?? throw new InvalidOperationException($"No network interface in this network namespace has the address {local}: AF_XDP binds to the interface that holds the socket's local address.");
    }

    /// <summary>The interface, next hop and next hop's Ethernet address for sending to <paramref name="destination"/>.</summary>
    /// <exception cref="InvalidOperationException">
    /// No route, or the neighbour table has no usable entry for the next hop; the message names the address, the
    /// interface and how to fill the entry.
    /// </exception>
    public static LinkLayerPath Resolve(IPAddress destination)
    {
        using var netlink = RouteNetlink.Open();
        var route = netlink.GetRoute(destination);
        var link = netlink.GetLink(route.OutputInterface)
            ?? throw new InvalidOperationException($"The route to {destination} leaves through interface {route.OutputInterface}, which no longer exists.");
        var nextHop = route.Gateway ?? destination;
        var mac = netlink.GetNeighbour(nextHop, link.Index) ?? throw new InvalidOperationException(
            $"No neighbour entry for {nextHop} on {link.Name}{(route.Gateway is null ? string.Empty : $" (the gateway to {destination})")}: " +
            $"AF_XDP frames need the next hop's Ethernet address from the kernel's neighbour table. Ping it once, or add one with 'ip neigh replace {nextHop} lladdr <mac> dev {link.Name}'.");
        return new LinkLayerPath(link, nextHop, mac, route.PreferredSource);
    }
}
