using System.Buffers.Binary;
using System.Net.Sockets;
using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// A token bucket per source for handshake messages while under load, as WireGuard keeps (wireguard-go's
/// ratelimiter, the kernel's ratelimiter.c): 20 a second with a burst of 5, per IPv4 address and per IPv6 /64 (one
/// host owns a whole /64, so its addresses share a bucket). Entries idle for a second are collected; the table holds
/// at most <see cref="MaxEntries"/> sources, so a flood from forged addresses costs bounded memory, and a source
/// the full table has no room for is refused until room comes back.
/// </summary>
internal sealed class HandshakeRateLimiter(TimeProvider time)
{
    /// <summary>Messages a second one source may send under load (both implementations use 20).</summary>
    public const int PacketsPerSecond = 20;

    /// <summary>Messages one source may send at once before the rate applies.</summary>
    public const int Burst = 5;

    /// <summary>
    /// The kernel's limit on a host with 4 GiB or more (8,192 hash buckets, eight entries each); about 3 MiB here.
    /// A flood from N forged addresses a second keeps at most about N / 4 entries that are not yet refilled.
    /// </summary>
    public const int MaxEntries = 65_536;

    private readonly Dictionary<UInt128, Bucket> _buckets = [];
    private readonly long _cost = time.TimestampFrequency / PacketsPerSecond;
    private long _lastCollection = time.GetTimestamp();
    private long _lastFullSweep = long.MinValue / 2;

    /// <summary>Sources with a bucket now.</summary>
    public int Count => _buckets.Count;

    /// <summary>Takes a token from <paramref name="source"/>'s bucket; false when it is empty or the table is full.</summary>
    public bool Allow(DatagramAddress source)
    {
        var now = time.GetTimestamp();
        if (now - _lastCollection >= time.TimestampFrequency)
        {
            Collect(now, idleTicks: time.TimestampFrequency);
        }

        var key = KeyOf(source);
        if (!_buckets.ContainsKey(key) && _buckets.Count >= MaxEntries)
        {
            // A bucket refilled to its burst tells nothing a new one would not: those go. One sweep per token's worth
            // of time at most, so sources the full table refuses cost a lookup each, not a sweep each.
            if (now - _lastFullSweep >= _cost)
            {
                _lastFullSweep = now;
                Collect(now, idleTicks: _cost * Burst);
            }

            if (_buckets.Count >= MaxEntries)
            {
                return false;
            }
        }

        ref var bucket = ref CollectionsMarshal.GetValueRefOrAddDefault(_buckets, key, out var exists);
        if (!exists)
        {
            bucket = new Bucket(now, (_cost * Burst) - _cost);
            return true;
        }

        var tokens = Math.Min(bucket.Tokens + (now - bucket.LastTime), _cost * Burst);
        bucket.LastTime = now;
        if (tokens < _cost)
        {
            bucket.Tokens = tokens;
            return false;
        }

        bucket.Tokens = tokens - _cost;
        return true;
    }

    /// <summary>Forgets every source (the engine stopped being under load long ago, or shuts down).</summary>
    public void Clear() => _buckets.Clear();

    private void Collect(long now, long idleTicks)
    {
        _lastCollection = now;
        foreach (var (key, bucket) in _buckets)
        {
            if (now - bucket.LastTime >= idleTicks)
            {
                _buckets.Remove(key);
            }
        }
    }

    /// <summary>
    /// IPv6: the first 64 bits, low half zero; IPv4: the address with bit 32 set, high half zero, so the two never
    /// meet. A TCP fallback connection (a whole address of 100::/64) is its own source. Also the source of the TCP
    /// fallback's unauthenticated connections (<see cref="Paths.UnauthenticatedConnections{T}"/>).
    /// </summary>
    internal static UInt128 KeyOf(DatagramAddress source)
    {
        source = source.Unmap();
        Span<byte> bytes = stackalloc byte[16];
        var length = source.WriteAddressBytes(bytes);
        if (source.Family != AddressFamily.InterNetworkV6 || length != 16)
        {
            return new UInt128(0, (1UL << 32) | BinaryPrimitives.ReadUInt32BigEndian(bytes));
        }

        var high = BinaryPrimitives.ReadUInt64BigEndian(bytes);
        return new UInt128(high, Paths.TcpPathAddress.IsTcp(source) ? BinaryPrimitives.ReadUInt64BigEndian(bytes[8..]) : 0);
    }

    private record struct Bucket(long LastTime, long Tokens);
}
