using System.Runtime.Versioning;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Pal;

/// <summary>
/// The refusal to route a prefix the host's table already routes. wg-quick's 'ip route add'
/// stops at such a prefix with "RTNETLINK answers: File exists" and touches nothing; taking the route over instead
/// (a replace) sent the underlay's own subnet into the tunnel, so the tunnel never reached its peer, and the route
/// was gone once the interface closed.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class RoutesInTheWay
{
    private const int Listed = 5;

    /// <summary>
    /// Throws when table <paramref name="table"/> holds a route for one of <paramref name="prefixes"/> that does not go
    /// through interface <paramref name="ownInterface"/> (0 before the interface exists), naming each prefix and the
    /// route in the way as ip-route(8) prints it.
    /// </summary>
    public static void Refuse(NetlinkInterfaceSetup netlink, IReadOnlyCollection<IPPrefix> prefixes, uint table, int ownInterface)
    {
        ArgumentNullException.ThrowIfNull(netlink);
        if (prefixes.Count == 0)
        {
            return;
        }

        var inTheWay = netlink.Find(prefixes, table).Where(route => route.Multipath || route.InterfaceIndex != ownInterface || ownInterface == 0).ToArray();
        if (inTheWay.Length == 0)
        {
            return;
        }

        var shown = string.Join("; ", inTheWay.Take(Listed).Select(route => $"AllowedIPs {route.Prefix} is routed already: {route.Describe(netlink.InterfaceName)}"));
        throw new InterfaceSetupException(
            $"{shown}{(inTheWay.Length > Listed ? $"; and {inTheWay.Length - Listed:N0} more" : string.Empty)}. " +
            "Salvo neither replaces nor removes a route it did not add: take the prefix out of AllowedIPs, remove that route, " +
            "or give the tunnel Table = off or a table of its own (Table = NUMBER)");
    }

    /// <summary>
    /// The prefixes the kernel refused with EEXIST while routes went in, sorted by <see cref="Refuse"/>: those already
    /// through the tunnel's own interface (an Address's subnet, which the kernel routes the moment the address is added)
    /// are fine; any other ends the start, as one found before the interface was made.
    /// </summary>
    public static void RefuseExisting(NetlinkInterfaceSetup netlink, List<RefusedRoute> refused, uint table, int ownInterface)
    {
        ArgumentNullException.ThrowIfNull(refused);
        var existing = refused.Where(r => r.Errno == RefusedRoute.Exists).Select(r => r.Prefix).ToArray();
        Refuse(netlink, existing, table, ownInterface);
        refused.RemoveAll(r => r.Errno == RefusedRoute.Exists);
    }
}
