using Salvo.Tunnel;

namespace Salvo.WireGuard.Status;

/// <summary>
/// One running tunnel as <c>wireguard-salvo show --json</c> prints it and as <c>up</c> keeps it in its status file; the text
/// of <c>show</c> is rendered from it. <see cref="Dropped"/> has every <see cref="TunnelDropReason"/>, zeros included.
/// </summary>
internal sealed record TunnelStatusDocument(
    string Interface,
    string PublicKey,
    int ListenPort,
    DateTimeOffset Written,
    long CookieRepliesSent,
    IReadOnlyDictionary<string, long> Dropped,
    IReadOnlyList<TunnelPeerDocument> Peers)
{
    public static TunnelStatusDocument From(TunnelDevice tunnel, DateTimeOffset now) =>
        From(tunnel.InterfaceName, tunnel.Engine.PublicKey, tunnel.ListenPort, tunnel.Engine.GetPeers(), tunnel.Engine.Counters, now);

    public static TunnelStatusDocument From(
        string interfaceName, WireGuardKey? publicKey, int listenPort, IEnumerable<PeerStatus> peers, TunnelCounters? counters, DateTimeOffset now) => new(
        interfaceName,
        publicKey?.ToString() ?? "(none)",
        listenPort,
        now,
        counters?.CookieRepliesSent ?? 0,
        Enum.GetValues<TunnelDropReason>().ToDictionary(reason => reason.ToString(), reason => counters?[reason] ?? 0),
        [.. peers.Select(TunnelPeerDocument.From)]);
}

/// <summary>One peer of a <see cref="TunnelStatusDocument"/>.</summary>
internal sealed record TunnelPeerDocument(
    string PublicKey,
    string? Endpoint,
    string Path,
    DateTimeOffset? PathChanged,
    string? PathReason,
    IReadOnlyList<string> AllowedIps,
    DateTimeOffset? LatestHandshake,
    long ReceivedBytes,
    long SentBytes,
    int? PersistentKeepaliveSeconds)
{
    public static TunnelPeerDocument From(PeerStatus peer) => new(
        peer.PublicKey.ToString(),
        peer.Endpoint?.ToString(),
        peer.Path.ToString().ToLowerInvariant(),
        peer.PathChanged,
        peer.PathReason,
        [.. peer.AllowedIps.Select(prefix => prefix.ToString())],
        peer.LatestHandshake,
        peer.ReceivedBytes,
        peer.SentBytes,
        peer.PersistentKeepalive is { } keepalive ? (int)keepalive.TotalSeconds : null);
}
