using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// The routes 'salvo tunnel up' adds for the peers' AllowedIPs, as wg-quick does: one route per prefix through
/// the interface. A default route (a /0) is left out: taking all traffic into a tunnel whose own UDP packets must
/// still leave by the old route needs policy routing (wg-quick's fwmark and table), which is not done here.
/// </summary>
internal static class TunnelRoutes
{
    /// <summary>The prefixes to route through the interface, each once, and the default routes left out.</summary>
    public static (IReadOnlyList<IPPrefix> Routes, IReadOnlyList<IPPrefix> DefaultRoutesLeftOut) For(TunnelConfiguration configuration)
    {
        var prefixes = configuration.Peers.SelectMany(p => p.AllowedIps).Distinct().ToArray();
        return (prefixes.Where(p => p.Length > 0).ToArray(), prefixes.Where(p => p.Length == 0).ToArray());
    }
}
