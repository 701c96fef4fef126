using System.Net;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel;

/// <summary>What <c>salvo tunnel show</c> prints about a peer.</summary>
/// <param name="PublicKey">The peer's public key.</param>
/// <param name="Endpoint">Where packets go now (the configured one, or where the peer last spoke from).</param>
/// <param name="AllowedIps">The prefixes routed to the peer.</param>
/// <param name="LatestHandshake">When the last handshake completed, or null.</param>
/// <param name="ReceivedBytes">Bytes of authenticated datagrams received.</param>
/// <param name="SentBytes">Bytes of datagrams sent.</param>
/// <param name="PersistentKeepalive">The keepalive interval, or null when off.</param>
/// <param name="HasSession">Whether a session key is in use.</param>
public sealed record PeerStatus(
    WireGuardKey PublicKey,
    IPEndPoint? Endpoint,
    IReadOnlyList<IPPrefix> AllowedIps,
    DateTimeOffset? LatestHandshake,
    long ReceivedBytes,
    long SentBytes,
    TimeSpan? PersistentKeepalive,
    bool HasSession)
{
    /// <summary>The path the peer's messages go over now. Defaults to <see cref="TunnelPath.Udp"/>.</summary>
    public TunnelPath Path { get; init; }

    /// <summary>When the path last changed; null when it never has. Defaults to null.</summary>
    public DateTimeOffset? PathChanged { get; init; }

    /// <summary>Why the path last changed; null when it never has. Defaults to null.</summary>
    public string? PathReason { get; init; }

    /// <summary>Handshake initiations sent to the peer, retries included. Defaults to 0.</summary>
    public long InitiationsSent { get; init; }

    /// <summary>Initiations sent since the last completed handshake, none of them answered. Defaults to 0.</summary>
    public long InitiationsUnanswered { get; init; }

    /// <summary>When the first of <see cref="InitiationsUnanswered"/> was sent; null when none. Defaults to null.</summary>
    public DateTimeOffset? UnansweredSince { get; init; }

    /// <summary>
    /// Whether the peer does not answer: at least <see cref="TunnelEngine.UnansweredInitiations"/> initiations over at
    /// least <see cref="TunnelEngine.UnansweredWindow"/> went unanswered (a wrong public key on either side, a wrong
    /// endpoint, or a firewall dropping UDP). Defaults to false.
    /// </summary>
    public bool IsUnanswered { get; init; }
}
