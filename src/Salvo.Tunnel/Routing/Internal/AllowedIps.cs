namespace Salvo.Tunnel.Routing;

/// <summary>
/// Cryptokey routing: which peer owns an address, by longest-prefix match over every peer's AllowedIPs.
/// A binary trie per address family, one node per prefix bit; a lookup walks at most 32 or 128 nodes and
/// allocates nothing. Adding a prefix that another peer holds moves it, as <c>wg set</c> does.
/// </summary>
/// <typeparam name="TPeer">What a match returns.</typeparam>
internal sealed class AllowedIps<TPeer>
    where TPeer : class
{
    private readonly Node _v4 = new();
    private readonly Node _v6 = new();

    /// <summary>Routes <paramref name="prefix"/> to <paramref name="peer"/>, replacing any earlier owner.</summary>
    public void Add(IPPrefix prefix, TPeer peer)
    {
        ArgumentNullException.ThrowIfNull(peer);
        Span<byte> bytes = stackalloc byte[16];
        prefix.Address.TryWriteBytes(bytes, out var written);
        var node = written == 4 ? _v4 : _v6;
        for (var bit = 0; bit < prefix.Length; bit++)
        {
            ref var child = ref (Bit(bytes, bit) == 0 ? ref node.Zero : ref node.One);
            child ??= new Node();
            node = child;
        }

        node.Peer = peer;
    }

    /// <summary>Removes every prefix routed to <paramref name="peer"/>.</summary>
    public void RemovePeer(TPeer peer)
    {
        Remove(_v4, peer);
        Remove(_v6, peer);
    }

    /// <summary>The prefixes routed to <paramref name="peer"/>, for display.</summary>
    public IReadOnlyList<IPPrefix> PrefixesOf(TPeer peer)
    {
        var found = new List<IPPrefix>();
        Walk((owner, prefix) =>
        {
            if (ReferenceEquals(owner, peer))
            {
                found.Add(prefix);
            }
        });
        return found;
    }

    /// <summary>
    /// Every peer's prefixes, in one walk of the tries: asking <see cref="PrefixesOf"/> for each of N peers walks them N
    /// times (10,000 peers with 20,000 prefixes: 10,000 walks of some 60,000 nodes for one status).
    /// </summary>
    public Dictionary<TPeer, List<IPPrefix>> PrefixesByPeer()
    {
        var found = new Dictionary<TPeer, List<IPPrefix>>(ReferenceEqualityComparer.Instance);
        Walk((owner, prefix) =>
        {
            if (!found.TryGetValue(owner, out var prefixes))
            {
                found[owner] = prefixes = [];
            }

            prefixes.Add(prefix);
        });
        return found;
    }

    /// <summary>The owner of the destination address of an IPv4 or IPv6 packet, or null.</summary>
    public TPeer? LookupDestination(ReadOnlySpan<byte> packet) => IPPacket.TryGetDestination(packet, out var address) ? Lookup(address) : null;

    /// <summary>The owner of the source address of an IPv4 or IPv6 packet, or null.</summary>
    public TPeer? LookupSource(ReadOnlySpan<byte> packet) => IPPacket.TryGetSource(packet, out var address) ? Lookup(address) : null;

    /// <summary>The owner of the longest prefix holding <paramref name="address"/> (4 or 16 bytes), or null.</summary>
    public TPeer? Lookup(ReadOnlySpan<byte> address)
    {
        var node = address.Length == 4 ? _v4 : address.Length == 16 ? _v6 : null;
        TPeer? best = null;
        for (var bit = 0; node is not null; bit++)
        {
            best = node.Peer ?? best;
            if (bit == address.Length * 8)
            {
                break;
            }

            node = Bit(address, bit) == 0 ? node.Zero : node.One;
        }

        return best;
    }

    private static int Bit(ReadOnlySpan<byte> bytes, int index) => (bytes[index / 8] >> (7 - (index % 8))) & 1;

    private static void Remove(Node? node, TPeer peer)
    {
        if (node is null)
        {
            return;
        }

        if (ReferenceEquals(node.Peer, peer))
        {
            node.Peer = null;
        }

        Remove(node.Zero, peer);
        Remove(node.One, peer);
    }

    /// <summary>Every routed prefix with its owner, IPv4 first, each family in address order.</summary>
    private void Walk(Action<TPeer, IPPrefix> visit)
    {
        Walk(_v4, new byte[4], 0, visit);
        Walk(_v6, new byte[16], 0, visit);
    }

    private static void Walk(Node? node, byte[] path, int depth, Action<TPeer, IPPrefix> visit)
    {
        if (node is null)
        {
            return;
        }

        if (node.Peer is { } owner)
        {
            visit(owner, new IPPrefix(new System.Net.IPAddress(path), depth));
        }

        if (depth == path.Length * 8)
        {
            return;
        }

        Walk(node.Zero, path, depth + 1, visit);
        path[depth / 8] |= (byte)(0x80 >> (depth % 8));
        Walk(node.One, path, depth + 1, visit);
        path[depth / 8] &= (byte)~(0x80 >> (depth % 8));
    }

    private sealed class Node
    {
        public Node? Zero;
        public Node? One;
        public TPeer? Peer;
    }
}
