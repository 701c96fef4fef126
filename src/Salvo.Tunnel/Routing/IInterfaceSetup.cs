using Salvo.Tunnel.Configuration;

namespace Salvo.Tunnel.Routing;

/// <summary>
/// What wg-quick does to a tunnel's interface with ip(8) once the device exists: its addresses, its MTU and link up,
/// and a route through it for each allowed prefix. A route is never replaced: a prefix the table holds through
/// another interface is refused, naming the route in the way. Every route added goes through the interface, so the
/// kernel removes exactly those when the interface closes. Opened with <see cref="InterfaceSetup.Open"/>.
/// </summary>
public interface IInterfaceSetup : IDisposable
{
    /// <summary>
    /// Throws when table <paramref name="table"/> holds a route for one of <paramref name="prefixes"/> that does not go
    /// through <paramref name="interfaceName"/> (null before the interface exists: any such route is in the way).
    /// </summary>
    /// <exception cref="InterfaceSetupException">A prefix is routed already, or the table could not be read.</exception>
    void RefuseRoutesInTheWay(IReadOnlyCollection<IPPrefix> prefixes, uint table, string? interfaceName);

    /// <summary>Adds <paramref name="address"/> to the interface, as 'ip address add ADDRESS dev NAME'.</summary>
    /// <exception cref="InterfaceSetupException">The interface is missing, or the kernel refused the address.</exception>
    void AddAddress(string interfaceName, InterfaceAddress address);

    /// <summary>Sets the interface's MTU and brings it up, as 'ip link set dev NAME mtu MTU up'.</summary>
    /// <exception cref="InterfaceSetupException">The interface is missing, or the kernel refused.</exception>
    void SetMtuAndUp(string interfaceName, int mtu);

    /// <summary>
    /// Adds a route of each of <paramref name="routes"/> through the interface into table <paramref name="table"/>,
    /// many per request, stopping between batches once <paramref name="stop"/> is cancelled; returns how many were added.
    /// A prefix already routed through this interface (an address's own subnet) is left as it is.
    /// </summary>
    /// <exception cref="InterfaceSetupException">
    /// A prefix is routed through another interface, or the kernel refused routes (each named with its reason).
    /// </exception>
    int AddRoutes(string interfaceName, IReadOnlyList<IPPrefix> routes, uint table, CancellationToken stop);
}
