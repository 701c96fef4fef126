using System.Buffers.Binary;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The engine's peers, found by public key in O(1) (a hash of the 32 key bytes) and walked in insertion order by the
/// timers. A linear scan cost one 32-byte comparison per configured peer on every handshake initiation, 10,000 of them
/// with 10,000 peers. Public keys are not secret, so a lookup need not run in constant time (wireguard-go keeps a map too).
/// The set holds the peers themselves, hashed by their key's bytes and looked up by a span of them: 16 bytes an entry,
/// where a map from a copy of the key took 48 (32 MB less at a million peers).
/// Not thread-safe: the engine holds its lock around every call.
/// </summary>
internal sealed class PeerTable
{
    private readonly HashSet<Peer> _byKey = new(KeyComparer.Instance);
    private readonly HashSet<Peer>.AlternateLookup<ReadOnlySpan<byte>> _byKeyBytes;
    private readonly List<Peer> _ordered = [];

    public PeerTable() => _byKeyBytes = _byKey.GetAlternateLookup<ReadOnlySpan<byte>>();

    /// <summary>How many peers there are.</summary>
    public int Count => _ordered.Count;

    /// <summary>The peer with this public key, or null.</summary>
    public Peer? Find(ReadOnlySpan<byte> publicKey) =>
        publicKey.Length == WireGuardKey.Size && _byKeyBytes.TryGetValue(publicKey, out var peer) ? peer : null;

    /// <summary>Whether <paramref name="peer"/> is still in the table (the data path may hold one removed meanwhile).</summary>
    public bool Contains(Peer peer) => ReferenceEquals(Find(peer.PublicKey), peer);

    /// <summary>Makes room for <paramref name="count"/> peers in all, so adding up to that many grows nothing.</summary>
    public void EnsureCapacity(int count)
    {
        if (count <= _ordered.Capacity)
        {
            return;
        }

        _byKey.EnsureCapacity(count);
        _ordered.EnsureCapacity(count);
    }

    /// <summary>Adds <paramref name="peer"/>; false when a peer with its key is already here.</summary>
    public bool TryAdd(Peer peer)
    {
        ArgumentNullException.ThrowIfNull(peer);
        if (!_byKey.Add(peer))
        {
            return false;
        }

        _ordered.Add(peer);
        return true;
    }

    /// <summary>Removes <paramref name="peer"/>; false when it was not here.</summary>
    public bool Remove(Peer peer)
    {
        ArgumentNullException.ThrowIfNull(peer);
        if (!Contains(peer))
        {
            return false;
        }

        _byKey.Remove(peer);

        // The last peer is the common case of a remove right after an add; any other costs one pass of the list.
        var at = _ordered.Count > 0 && ReferenceEquals(_ordered[^1], peer) ? _ordered.Count - 1 : _ordered.IndexOf(peer);
        _ordered.RemoveAt(at);
        return true;
    }

    /// <summary>Removes every peer <paramref name="remove"/> picks, in one pass of the list (a replace of many peers).</summary>
    public void RemoveWhere(Func<Peer, bool> remove)
    {
        ArgumentNullException.ThrowIfNull(remove);
        _ordered.RemoveAll(peer => remove(peer) && _byKey.Remove(peer));
    }

    /// <summary>Forgets every peer (the caller disposes them).</summary>
    public void Clear()
    {
        _byKey.Clear();
        _ordered.Clear();
    }

    /// <summary>Walks the peers in the order they were added; allocates nothing.</summary>
    public List<Peer>.Enumerator GetEnumerator() => _ordered.GetEnumerator();

    /// <summary>A copy of the peers, for callers that change the table while they walk it.</summary>
    public Peer[] ToArray() => [.. _ordered];

    /// <summary>Up to <paramref name="count"/> peers from position <paramref name="start"/> of the walk, for a listing taken a page at a time.</summary>
    public Peer[] Page(int start, int count) =>
        start >= _ordered.Count ? [] : [.. _ordered.GetRange(start, Math.Min(count, _ordered.Count - start))];

    /// <summary>Compares peers by their key's bytes, and a span of key bytes with a peer.</summary>
    private sealed class KeyComparer : IEqualityComparer<Peer>, IAlternateEqualityComparer<ReadOnlySpan<byte>, Peer>
    {
        public static readonly KeyComparer Instance = new();

        public bool Equals(Peer? x, Peer? y) =>
            ReferenceEquals(x, y) || (x is not null && y is not null && x.PublicKey.SequenceEqual(y.PublicKey));

        public int GetHashCode(Peer obj) => Hash(obj.PublicKey);

        public bool Equals(ReadOnlySpan<byte> alternate, Peer other) => alternate.SequenceEqual(other.PublicKey);

        public int GetHashCode(ReadOnlySpan<byte> alternate) => Hash(alternate);

        // Only lookups go by span; a peer is added as itself.
        public Peer Create(ReadOnlySpan<byte> alternate) => throw new NotSupportedException("Peers are added whole.");

        // HashCode seeds itself randomly per process, so nobody can pick keys that collide in advance.
        private static int Hash(ReadOnlySpan<byte> key) => HashCode.Combine(
            BinaryPrimitives.ReadUInt64LittleEndian(key),
            BinaryPrimitives.ReadUInt64LittleEndian(key[8..]),
            BinaryPrimitives.ReadUInt64LittleEndian(key[16..]),
            BinaryPrimitives.ReadUInt64LittleEndian(key[24..]));
    }
}
