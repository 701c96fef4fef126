using System.Runtime.Versioning;

namespace Salvo.Pal;

/// <summary>
/// Ethernet addresses of the next hop per destination IP, for framing sends without a netlink round trip each: a hit
/// costs one dictionary lookup and allocates nothing. A miss asks the kernel (<see cref="NeighbourLookup.Resolve"/>);
/// a reply path can instead learn the address a request came from (its frame's source MAC is the peer when on-link,
/// else the gateway the peer's traffic arrives through). Not thread-safe: one per worker, as the rest of its state.
/// </summary>
/// <remarks>
/// Entries do not expire: a peer that changes its Ethernet address (a failover that moves an IP) needs
/// <see cref="Forget"/> or a fresh cache; the kernel's own table ages entries in seconds
/// (net.ipv4.neigh.*.base_reachable_time_ms, 30,000 by default) where this one keeps them for its life.
/// </remarks>
[SupportedOSPlatform("linux")]
internal sealed class NextHopCache
{
    private readonly Dictionary<DatagramAddress, MacAddress> _entries = [];
    private readonly Func<DatagramAddress, MacAddress> _resolve;

    /// <param name="resolve">What a miss asks; the kernel's tables by default.</param>
    public NextHopCache(Func<DatagramAddress, MacAddress>? resolve = null) =>
        _resolve = resolve ?? (destination => NeighbourLookup.Resolve(destination.ToIPAddress()).NextHopMac);

    public int Count => _entries.Count;

    /// <summary>The next hop's address for <paramref name="destination"/> (its port is ignored), resolved on a miss.</summary>
    /// <exception cref="InvalidOperationException">A miss the kernel cannot answer (no route, no neighbour entry).</exception>
    public MacAddress Get(DatagramAddress destination)
    {
        var key = Key(destination);
        if (_entries.TryGetValue(key, out var mac))
        {
            return mac;
        }

        mac = _resolve(key);
        _entries[key] = mac;
        return mac;
    }

    /// <summary>Records that frames from <paramref name="source"/> arrive from <paramref name="mac"/>.</summary>
    public void Learn(DatagramAddress source, MacAddress mac) => _entries[Key(source)] = mac;

    public bool Forget(DatagramAddress destination) => _entries.Remove(Key(destination));

    private static DatagramAddress Key(DatagramAddress address) => address.Unmap().WithPort(0);
}
