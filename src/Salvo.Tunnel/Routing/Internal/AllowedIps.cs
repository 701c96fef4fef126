namespace Salvo.Tunnel.Routing;

/// <summary>
/// Cryptokey routing: which peer owns an address, by longest-prefix match over every peer's AllowedIPs.
/// A binary trie per address family, one node per prefix bit; a lookup walks at most 32 or 128 nodes and
/// allocates nothing. Adding a prefix that another peer holds moves it, as <c>wg set</c> does.
/// </summary>
/// <remarks>
/// One writer at a time (the engine's lock), any number of readers without a lock: the data path looks packets up
/// while <c>wg set</c> changes routes. Every change is one reference store (a node's owner, or a child made whole
/// before it is linked), so a lookup sees each prefix either before or after a change, never a half-built node.
/// <see cref="Replace(TPeer, byte[])"/> routes the new prefixes before it unroutes the old ones, so a prefix a peer keeps is never
/// briefly without an owner.
/// </remarks>
/// <typeparam name="TPeer">What a match returns.</typeparam>
internal sealed class AllowedIps<TPeer>
    where TPeer : class, IRouteOwner
{
    private readonly Node _v4 = new();
    private readonly Node _v6 = new();

    /// <summary>Routes <paramref name="prefix"/> to <paramref name="peer"/>, replacing any earlier owner.</summary>
    public void Add(IPPrefix prefix, TPeer peer)
    {
        Span<byte> bytes = stackalloc byte[16];
        prefix.Address.TryWriteBytes(bytes, out var written);
        Add(bytes[..written], prefix.Length, peer);
    }

    /// <summary>
    /// Routes the prefix of <paramref name="address"/> (4 or 16 bytes; host bits are cleared here) and
    /// <paramref name="length"/> to <paramref name="peer"/>, replacing any earlier owner.
    /// </summary>
    public void Add(ReadOnlySpan<byte> address, int length, TPeer peer)
    {
        ArgumentNullException.ThrowIfNull(peer);
        Span<byte> bytes = stackalloc byte[16];
        bytes = bytes[..address.Length];
        address.CopyTo(bytes);
        ClearHostBits(bytes, length);
        var node = bytes.Length == 4 ? _v4 : _v6;
        for (var bit = 0; bit < length; bit++)
        {
            ref var child = ref (Bit(bytes, bit) == 0 ? ref node.Zero : ref node.One);
            if (child is null)
            {
                Volatile.Write(ref child, new Node());
            }

            node = child!;
        }

        if (ReferenceEquals(node.Peer, peer))
        {
            return;
        }

        if (node.Peer is { } previous)
        {
            Forget(previous, bytes, length);
        }

        Volatile.Write(ref node.Peer, peer);
        peer.OwnedPrefixes = PackedPrefixes.Append(peer.OwnedPrefixes, bytes, length);
    }

    /// <summary>Makes <paramref name="prefixes"/> the whole of <paramref name="peer"/>'s routes: new ones first, then the rest go.</summary>
    public void Replace(TPeer peer, IReadOnlyCollection<IPPrefix> prefixes)
    {
        ArgumentNullException.ThrowIfNull(prefixes);
        byte[]? packed = null;
        foreach (var prefix in prefixes)
        {
            packed = PackedPrefixes.Append(packed, prefix);
        }

        Replace(peer, packed);
    }

    /// <summary>
    /// Makes the prefixes of <paramref name="packed"/> (<see cref="PackedPrefixes"/>' form; null for none) the whole of
    /// <paramref name="peer"/>'s routes: new ones first, then the rest go.
    /// </summary>
    public void Replace(TPeer peer, byte[]? packed)
    {
        ArgumentNullException.ThrowIfNull(peer);
        if (peer.OwnedPrefixes is null)
        {
            // A new peer (every peer of a wg setconf) has nothing to unroute: one array of the right size, filled.
            var bytes = PackedPrefixes.UsedBytes(packed);
            if (bytes > 0)
            {
                peer.OwnedPrefixes = PackedPrefixes.Reserve(null, bytes);
            }

            foreach (var prefix in PackedPrefixes.Enumerate(packed))
            {
                Add(prefix.Address, prefix.Length, peer);
            }

            if (peer.OwnedPrefixes is { } owned && PackedPrefixes.IsEmpty(owned))
            {
                peer.OwnedPrefixes = null;
            }

            return;
        }

        foreach (var prefix in PackedPrefixes.Enumerate(packed))
        {
            Add(prefix.Address, prefix.Length, peer);
        }

        var kept = PackedPrefixes.Unpack(packed).Select(Canonical).ToHashSet();
        foreach (var prefix in PrefixesOf(peer))
        {
            if (!kept.Contains(prefix))
            {
                Unroute(prefix, peer);
            }
        }
    }

    /// <summary>Removes every prefix routed to <paramref name="peer"/>.</summary>
    public void RemovePeer(TPeer peer)
    {
        foreach (var prefix in PrefixesOf(peer))
        {
            Unroute(prefix, peer);
        }

        peer.OwnedPrefixes = null;
    }

    /// <summary>The prefixes routed to <paramref name="peer"/>, in the order they were added.</summary>
    public IReadOnlyList<IPPrefix> PrefixesOf(TPeer peer) => PackedPrefixes.Unpack(peer.OwnedPrefixes);

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
            best = Volatile.Read(ref node.Peer) ?? best;
            if (bit == address.Length * 8)
            {
                break;
            }

            node = Bit(address, bit) == 0 ? Volatile.Read(ref node.Zero) : Volatile.Read(ref node.One);
        }

        return best;
    }

    /// <summary>The prefix with its host bits cleared, as <c>wg</c> shows it (10.0.0.1/24 is 10.0.0.0/24).</summary>
    private static IPPrefix Canonical(IPPrefix prefix) => new(IPPrefix.Mask(prefix.Address, prefix.Length), prefix.Length);

    private static int Bit(ReadOnlySpan<byte> bytes, int index) => (bytes[index / 8] >> (7 - (index % 8))) & 1;

    /// <summary>Clears the bits of <paramref name="address"/> past <paramref name="length"/>.</summary>
    private static void ClearHostBits(Span<byte> address, int length)
    {
        for (var bit = length; bit < address.Length * 8; bit++)
        {
            address[bit / 8] &= (byte)~(0x80 >> (bit % 8));
        }
    }

    private static void Forget(TPeer peer, IPPrefix prefix)
    {
        if (peer.OwnedPrefixes is { } owned && PackedPrefixes.Remove(owned, prefix) && PackedPrefixes.IsEmpty(owned))
        {
            peer.OwnedPrefixes = null;
        }
    }

    private static void Forget(TPeer peer, ReadOnlySpan<byte> address, int length)
    {
        if (peer.OwnedPrefixes is { } owned && PackedPrefixes.Remove(owned, address, length) && PackedPrefixes.IsEmpty(owned))
        {
            peer.OwnedPrefixes = null;
        }
    }

    /// <summary>Takes <paramref name="prefix"/> from <paramref name="peer"/> and unlinks the nodes left empty.</summary>
    private void Unroute(IPPrefix prefix, TPeer peer)
    {
        Span<byte> bytes = stackalloc byte[16];
        prefix.Address.TryWriteBytes(bytes, out var written);
        var path = new Node[prefix.Length + 1];
        path[0] = written == 4 ? _v4 : _v6;
        for (var bit = 0; bit < prefix.Length; bit++)
        {
            var next = Bit(bytes, bit) == 0 ? path[bit].Zero : path[bit].One;
            if (next is null)
            {
                return;
            }

            path[bit + 1] = next;
        }

        if (!ReferenceEquals(path[prefix.Length].Peer, peer))
        {
            return;
        }

        Volatile.Write(ref path[prefix.Length].Peer, null);
        Forget(peer, prefix);

        // A lookup already inside an unlinked node finds no owner there and keeps the best it had: the same answer.
        for (var depth = prefix.Length; depth > 0; depth--)
        {
            var node = path[depth];
            if (node.Peer is not null || node.Zero is not null || node.One is not null)
            {
                break;
            }

            ref var link = ref (Bit(bytes, depth - 1) == 0 ? ref path[depth - 1].Zero : ref path[depth - 1].One);
            Volatile.Write(ref link, null);
        }
    }

    private sealed class Node
    {
        public Node? Zero;
        public Node? One;
        public TPeer? Peer;
    }
}
