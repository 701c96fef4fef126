using System.Net;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Configuration;

/// <summary>One peer's part of a <see cref="TunnelChange"/>. Null means "leave as it is".</summary>
internal sealed class PeerChange(WireGuardKey publicKey)
{
    /// <summary>The peer's key; a configuration file may name it after the peer's other keys.</summary>
    public WireGuardKey PublicKey { get; set; } = publicKey;

    public bool Remove { get; set; }

    /// <summary>Change the peer only if it exists; never create it.</summary>
    public bool UpdateOnly { get; set; }

    public bool SetsPresharedKey { get; set; }

    /// <summary>The new preshared key; null with <see cref="SetsPresharedKey"/> clears it.</summary>
    public WireGuardKey? PresharedKey { get; set; }

    public IPEndPoint? Endpoint { get; set; }

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
}
