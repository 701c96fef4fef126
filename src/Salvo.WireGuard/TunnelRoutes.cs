using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;

namespace Salvo.WireGuard;

/// <summary>
/// The routes 'wireguard-salvo up' adds for the peers' AllowedIPs, as wg-quick does: one route per prefix through the
/// interface, none with <c>Table = off</c>. With <c>Table = auto</c> (the default) they go to the main table and a
/// default route (a /0) is left out: taking all traffic into a tunnel whose own UDP packets must still leave by the old
/// route needs policy routing (wg-quick's fwmark rules), which 'up' does not set up. With <c>Table = NUMBER</c> every
/// route goes to that table, default routes included, as wg-quick adds them; the rules that use the table are the user's.
/// </summary>
internal static class TunnelRoutes
{
    /// <summary>The prefixes to route through the interface, each once, and the default routes left out.</summary>
    public static (IReadOnlyList<IPPrefix> Routes, IReadOnlyList<IPPrefix> DefaultRoutesLeftOut) For(TunnelConfiguration configuration)
    {
        if (!configuration.AddRoutes)
        {
            return ([], []);
        }

        var prefixes = configuration.Peers.SelectMany(p => p.AllowedIps).Distinct().ToArray();
        return configuration.RouteTable is null
            ? (prefixes.Where(p => p.Length > 0).ToArray(), prefixes.Where(p => p.Length == 0).ToArray())
            : (prefixes, []);
    }
}
