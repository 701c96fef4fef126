using System.Net;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Configuration;

/// <summary>One tunnel interface: the <c>[Interface]</c> section of a wg/wg-quick file and its peers.</summary>
public sealed class TunnelConfiguration
{
    /// <summary>The tunnel's MTU when none is given: 1500 minus the 80 bytes of IPv6 + UDP + WireGuard overhead, as wg-quick uses.</summary>
    public const int DefaultMtu = 1420;

    /// <summary>
    /// This end's static private key. Null starts a device with no key, which refuses handshakes and packets (counted
    /// as <see cref="TunnelDropReason.NoPrivateKey"/>) until one is set through its control socket (<c>wg setconf</c>).
    /// Defaults to null.
    /// </summary>
    public WireGuardKey? PrivateKey { get; init; }

    /// <summary>The UDP port to listen on; null picks a free one. Defaults to null.</summary>
    public int? ListenPort { get; init; }

    /// <summary>
    /// The firewall mark (SO_MARK) of the tunnel's UDP socket, so policy routing can send the tunnel's own datagrams
    /// past a default route through the tunnel (wg-quick's full-tunnel setup); 0 is none. Setting one needs
    /// CAP_NET_ADMIN. Defaults to 0.
    /// </summary>
    public uint FwMark { get; init; }

    /// <summary>Addresses to put on the TUN device, host bits kept (wg-quick's Address). Defaults to none.</summary>
    public IReadOnlyList<InterfaceAddress> Addresses { get; init; } = [];

    /// <summary>The TUN device's MTU. Defaults to <see cref="DefaultMtu"/>.</summary>
    public int Mtu { get; init; } = DefaultMtu;

    /// <summary>
    /// Whether a route is added through the interface for each peer's AllowedIPs; false for wg-quick's <c>Table = off</c>.
    /// Defaults to true.
    /// </summary>
    public bool AddRoutes { get; init; } = true;

    /// <summary>
    /// The routing table the AllowedIPs routes go to, default routes included (wg-quick's <c>Table = NUMBER</c>); null
    /// for wg-quick's <c>Table = auto</c>: the main table, with a default route left to policy routing. Defaults to null.
    /// </summary>
    public uint? RouteTable { get; init; }

    /// <summary>The peers. Defaults to none.</summary>
    public IReadOnlyList<PeerConfiguration> Peers { get; init; } = [];

    /// <summary>The timers of the TCP fallback, for every peer whose <see cref="PeerConfiguration.TcpFallback"/> is not off. Defaults to <see cref="TcpFallbackOptions"/>' defaults.</summary>
    public TcpFallbackOptions TcpFallback { get; init; } = new();

    /// <summary>The change a configuration file parsed into, which carries keys this type does not show; null when built in code.</summary>
    internal TunnelChange? Parsed { get; init; }

    /// <summary>What a device or engine applies to start from this configuration, as <c>wg setconf</c> would set it.</summary>
    internal TunnelChange ToChange() => Parsed ?? TunnelChanges.FromConfiguration(this);
}

/// <summary>One <c>[Peer]</c> section.</summary>
public sealed class PeerConfiguration
{
    /// <summary>The peer's static public key. Required.</summary>
    public required WireGuardKey PublicKey { get; init; }

    /// <summary>An extra symmetric key mixed into the handshake (post-quantum resistance). Defaults to none (zeros).</summary>
    public WireGuardKey? PresharedKey { get; init; }

    /// <summary>Source addresses accepted from the peer and destinations routed to it. Defaults to none.</summary>
    public IReadOnlyList<IPPrefix> AllowedIps { get; init; } = [];

    /// <summary>Where to send until the peer is heard from; null waits for the peer to start. Defaults to null.</summary>
    public IPEndPoint? Endpoint { get; init; }

    /// <summary>Send an empty packet after this long without sending, to keep NAT state alive; null is off. Defaults to null.</summary>
    public TimeSpan? PersistentKeepalive { get; init; }

    /// <summary>
    /// Whether the peer's messages may go over TCP (config key <c>TcpFallback = auto | off | only</c>). Auto is safe
    /// with any WireGuard peer: one without a TCP listener refuses the connection and stays on UDP. Defaults to <see cref="TcpFallbackMode.Auto"/>.
    /// </summary>
    public TcpFallbackMode TcpFallback { get; init; }
}
