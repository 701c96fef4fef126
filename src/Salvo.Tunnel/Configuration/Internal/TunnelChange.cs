using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel.Configuration;

/// <summary>
/// One whole configuration change, parsed and checked before anything is applied, so bad input changes nothing. Both
/// ways in produce it: the control socket's <c>set=1</c> transaction (<see cref="Control.UapiSetParser"/>) and a
/// configuration file (<see cref="ParseState"/>), which reads as the transaction <c>wg setconf</c> sends for it
/// (<see cref="ReplacePeers"/>, each peer's AllowedIPs replaced) plus the settings only a file has; the engine applies
/// either through its one <see cref="TunnelEngine.Configure"/>. Null means "leave as it is".
/// </summary>
internal sealed class TunnelChange
{
    /// <summary>Whether <see cref="PrivateKey"/> is set by this change (to a key, or to none).</summary>
    public bool SetsPrivateKey { get; set; }

    /// <summary>The new private key; null with <see cref="SetsPrivateKey"/> removes it.</summary>
    public WireGuardKey? PrivateKey { get; set; }

    /// <summary>The UDP port to listen on; 0 picks a free one.</summary>
    public int? ListenPort { get; set; }

    /// <summary>The firewall mark (SO_MARK) of the tunnel's sockets; 0 clears it.</summary>
    public uint? FwMark { get; set; }

    /// <summary>Peers not named in <see cref="Peers"/> are removed.</summary>
    public bool ReplacePeers { get; set; }

    /// <summary>The peers to add, change or remove, in order.</summary>
    public List<PeerChange> Peers { get; } = [];

    /// <summary>
    /// What only a configuration file sets, read once when a device or engine starts from it (the control socket has
    /// no keys for them): the interface's addresses, MTU and routes, which the host acts on, and the TCP fallback's
    /// timers. Null for a change from the control socket.
    /// </summary>
    public InterfaceSettings? Interface { get; set; }
}

/// <summary>The <c>[Interface]</c> settings of a configuration file that are not WireGuard's own (wg-quick's and the TCP fallback's).</summary>
internal sealed class InterfaceSettings
{
    /// <summary>Addresses to put on the TUN device, host bits kept (wg-quick's Address).</summary>
    public IReadOnlyList<InterfaceAddress> Addresses { get; init; } = [];

    /// <summary>The TUN device's MTU.</summary>
    public int Mtu { get; init; } = TunnelConfiguration.DefaultMtu;

    /// <summary>Whether routes are added for the peers' AllowedIPs; false for wg-quick's <c>Table = off</c>.</summary>
    public bool AddRoutes { get; init; } = true;

    /// <summary>The routing table of those routes; null for the main table (wg-quick's <c>Table = auto</c>).</summary>
    public uint? RouteTable { get; init; }

    /// <summary>The TCP fallback's timers, for every peer whose fallback is not off.</summary>
    public TcpFallbackOptions TcpFallback { get; init; } = new();
}
