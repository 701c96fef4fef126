using System.Net;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Configuration;

/// <summary>One peer's part of a <see cref="TunnelChange"/>. Null means "leave as it is".</summary>
/// <remarks>
/// The key's bytes and the endpoint are held in the change itself: a million-peer set holds a million of these until it
/// is applied, and a key object, its array, an endpoint object and its address were four more objects a peer for the
/// collector to copy from generation to generation.
/// </remarks>
internal sealed class PeerChange
{
    private const int DualStackBytes = 2 + 4 + 2 + 16;

    private KeyBytes _publicKey;
    private DatagramAddress _endpoint;
    private byte[]? _allowedIps;

    public PeerChange(WireGuardKey publicKey) => PublicKey = publicKey;

    /// <summary>A change for the peer with these 32 key bytes.</summary>
    public PeerChange(ReadOnlySpan<byte> publicKey)
    {
        if (publicKey.Length != WireGuardKey.Size)
        {
            throw new ArgumentException($"A key is {WireGuardKey.Size} bytes.", nameof(publicKey));
        }

        publicKey.CopyTo(_publicKey);
    }

    /// <summary>The peer's key, as an object made on each read; a configuration file may name it after the peer's other keys.</summary>
    public WireGuardKey PublicKey
    {
        get => WireGuardKey.FromBytes(_publicKey);
        set
        {
            ArgumentNullException.ThrowIfNull(value);
            value.Bytes.CopyTo(_publicKey);
        }
    }

    /// <summary>The peer's key bytes, without an object.</summary>
    public ReadOnlySpan<byte> PublicKeyBytes => _publicKey;

    public bool Remove { get; set; }

    /// <summary>Change the peer only if it exists; never create it.</summary>
    public bool UpdateOnly { get; set; }

    public bool SetsPresharedKey { get; set; }

    /// <summary>The new preshared key; null with <see cref="SetsPresharedKey"/> clears it.</summary>
    public WireGuardKey? PresharedKey { get; set; }

    /// <summary>The new endpoint, as an object made on each read; null leaves it.</summary>
    public IPEndPoint? Endpoint
    {
        get => _endpoint.HasValue ? _endpoint.ToIPEndPoint() : null;
        set => _endpoint = value is null ? default : DatagramAddress.FromIPEndPoint(value);
    }

    /// <summary>The new endpoint without an object; <see cref="DatagramAddress.None"/> leaves it.</summary>
    public DatagramAddress EndpointAddress
    {
        get => _endpoint;
        set => _endpoint = value;
    }

    /// <summary>The new interval; zero turns persistent keepalives off.</summary>
    public TimeSpan? PersistentKeepalive { get; set; }

    /// <summary>The peer's AllowedIPs become <see cref="AllowedIps"/>; otherwise they are added to what it has.</summary>
    public bool ReplaceAllowedIps { get; set; }

    /// <summary>The prefixes to route to the peer, as objects made on each read.</summary>
    public IReadOnlyList<IPPrefix> AllowedIps => PackedPrefixes.Unpack(_allowedIps);

    /// <summary>How many prefixes <see cref="AllowedIps"/> holds.</summary>
    public int AllowedIpCount => PackedPrefixes.Count(_allowedIps);

    /// <summary>
    /// The prefixes in <see cref="PackedPrefixes"/>' form (null for none), host bits cleared: one array a peer where a
    /// list, its array and an address object a prefix were three to five objects.
    /// </summary>
    public byte[]? PackedAllowedIps => _allowedIps;

    /// <summary>Adds a prefix to route to the peer.</summary>
    public void AddAllowedIp(IPPrefix prefix)
    {
        Span<byte> address = stackalloc byte[16];
        prefix.Address.TryWriteBytes(address, out var size);
        AddAllowedIp(address[..size], prefix.Length);
    }

    /// <summary>Adds the prefix of <paramref name="address"/> (4 or 16 bytes) and <paramref name="length"/>; host bits are cleared.</summary>
    public void AddAllowedIp(ReadOnlySpan<byte> address, int length)
    {
        Span<byte> masked = stackalloc byte[address.Length];
        address.CopyTo(masked);
        for (var bit = length; bit < masked.Length * 8; bit++)
        {
            masked[bit / 8] &= (byte)~(0x80 >> (bit % 8));
        }

        // Room for what a dual-stack peer has, a /32 and a /128, in the first array.
        _allowedIps ??= PackedPrefixes.Reserve(null, DualStackBytes);
        _allowedIps = PackedPrefixes.Append(_allowedIps, masked, length);
    }

    /// <summary>Forgets the prefixes added so far (a <c>replace_allowed_ips</c> after some).</summary>
    public void ClearAllowedIps() => _allowedIps = null;

    /// <summary>
    /// Whether the peer's messages may go over TCP (a file's <c>TcpFallback</c>); read when the peer is created, as
    /// its path is built around it. Null, as from the control socket, makes a new peer plain WireGuard (off): the TCP
    /// fallback is a configuration-file feature.
    /// </summary>
    public TcpFallbackMode? TcpFallback { get; set; }

    [System.Runtime.CompilerServices.InlineArray(WireGuardKey.Size)]
    private struct KeyBytes
    {
        private byte _first;
    }
}
