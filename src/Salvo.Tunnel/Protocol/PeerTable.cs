using System.Buffers.Binary;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The engine's peers, found by public key in O(1) (a hash of the 32 key bytes) and walked in insertion order by the
/// timers. A linear scan cost one 32-byte comparison per configured peer on every handshake initiation, 10,000 of them
/// with 10,000 peers. Public keys are not secret, so a lookup need not run in constant time (wireguard-go keeps a map too).
/// Not thread-safe: the engine holds its lock around every call.
/// </summary>
internal sealed class PeerTable
{
    private readonly Dictionary<PeerKey, Peer> _byKey = [];
    private readonly List<Peer> _ordered = [];

    /// <summary>How many peers there are.</summary>
    public int Count => _ordered.Count;

    /// <summary>The peer with this public key, or null.</summary>
    public Peer? Find(ReadOnlySpan<byte> publicKey) =>
        publicKey.Length == WireGuardKey.Size && _byKey.TryGetValue(PeerKey.From(publicKey), out var peer) ? peer : null;

    /// <summary>Whether <paramref name="peer"/> is still in the table (the data path may hold one removed meanwhile).</summary>
    public bool Contains(Peer peer) => ReferenceEquals(Find(peer.PublicKey), peer);

    /// <summary>Adds <paramref name="peer"/>; false when a peer with its key is already here.</summary>
    public bool TryAdd(Peer peer)
    {
        ArgumentNullException.ThrowIfNull(peer);
        if (!_byKey.TryAdd(PeerKey.From(peer.PublicKey), peer))
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
        var key = PeerKey.From(peer.PublicKey);
        if (!_byKey.TryGetValue(key, out var found) || !ReferenceEquals(found, peer))
        {
            return false;
        }

        _byKey.Remove(key);
        _ordered.Remove(peer);
        return true;
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

    /// <summary>The 32 key bytes as four words: a value key, hashed with the process's random seed.</summary>
    private readonly struct PeerKey(ulong a, ulong b, ulong c, ulong d) : IEquatable<PeerKey>
    {
        private readonly ulong _a = a;
        private readonly ulong _b = b;
        private readonly ulong _c = c;
        private readonly ulong _d = d;

        public static PeerKey From(ReadOnlySpan<byte> key) => new(
            BinaryPrimitives.ReadUInt64LittleEndian(key),
            BinaryPrimitives.ReadUInt64LittleEndian(key[8..]),
            BinaryPrimitives.ReadUInt64LittleEndian(key[16..]),
            BinaryPrimitives.ReadUInt64LittleEndian(key[24..]));

        public bool Equals(PeerKey other) => _a == other._a && _b == other._b && _c == other._c && _d == other._d;

        public override bool Equals(object? obj) => obj is PeerKey other && Equals(other);

        // HashCode seeds itself randomly per process, so nobody can pick keys that collide in advance.
        public override int GetHashCode() => HashCode.Combine(_a, _b, _c, _d);
    }
}
