using System.Net;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Control;

/// <summary>
/// One whole configuration change (a UAPI <c>set=1</c> transaction), parsed and checked before anything is applied,
/// so bad input changes nothing. Null means "leave as it is".
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
}

/// <summary>One peer's part of a <see cref="TunnelChange"/>.</summary>
internal sealed class PeerChange(WireGuardKey publicKey)
{
    public WireGuardKey PublicKey { get; } = publicKey;

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
}
