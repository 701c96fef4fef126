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
    private KeyBytes _publicKey;
    private DatagramAddress _endpoint;

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

    public List<IPPrefix> AllowedIps { get; } = [];

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
