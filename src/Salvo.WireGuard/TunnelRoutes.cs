using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;

namespace Salvo.WireGuard;

/// <summary>
/// The routes 'wireguard-salvo up' adds for the peers' AllowedIPs, as wg-quick does: one route per prefix through the
/// interface, none with <c>Table = off</c>. With <c>Table = auto</c> (the default) they go to the main table and a
/// default route (a /0) is left out: taking all traffic into a tunnel whose own UDP packets must still leave by the old
/// route needs policy routing (wg-quick's fwmark rules), which 'up' does not set up. With <c>Table = NUMBER</c> every
/// route goes to that table, default routes included, as wg-quick adds them; the rules that use the table are the user's.
/// In the main table a prefix inside one of the interface's own address prefixes gets no route: the kernel already
/// routes the whole address prefix through the interface (its "proto kernel" route), so a hub whose million peers
/// sit inside its own /8 adds none instead of a million (wg-quick adds them all, one 'ip' call each).
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

        var prefixes = configuration.Peers.SelectMany(p => p.AllowedIps);
        if (configuration.RouteTable is not null)
        {
            return ([.. prefixes.Distinct()], []);
        }

        // Left out before they are made distinct: the two million prefixes of a hub's million peers inside its own
        // address prefixes never fill a set, to add no route.
        var own = configuration.Addresses.Select(a => new IPPrefix(a.Address, a.PrefixLength)).ToArray();
        var outside = prefixes.Where(p => p.Length == 0 || !own.Any(o => Covers(o, p))).Distinct().ToArray();
        return (outside.Where(p => p.Length > 0).ToArray(), outside.Where(p => p.Length == 0).ToArray());
    }

    /// <summary>Whether every address of <paramref name="inner"/> is in <paramref name="outer"/>.</summary>
    internal static bool Covers(IPPrefix outer, IPPrefix inner)
    {
        if (outer.Address.AddressFamily != inner.Address.AddressFamily || outer.Length > inner.Length)
        {
            return false;
        }

        Span<byte> a = stackalloc byte[16];
        Span<byte> b = stackalloc byte[16];
        outer.Address.TryWriteBytes(a, out _);
        inner.Address.TryWriteBytes(b, out _);
        var whole = outer.Length / 8;
        var rest = outer.Length % 8;
        var mask = (byte)(0xff << (8 - rest));
        return a[..whole].SequenceEqual(b[..whole]) && (rest == 0 || (a[whole] & mask) == (b[whole] & mask));
    }
}
