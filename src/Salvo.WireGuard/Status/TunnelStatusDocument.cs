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
    /// <summary>Whether the daemon answered Salvo's <c>get=salvo</c> (false for wireguard-go): the counters below are its. Defaults to true.</summary>
    public bool Salvo { get; init; } = true;

    /// <summary>Cookie replies received and accepted. Defaults to 0.</summary>
    public long CookieRepliesReceived { get; init; }

    /// <summary>Datagrams per receive call, on average; null before the first. Defaults to null.</summary>
    public double? MeanReceiveBatch { get; init; }

    /// <summary>Packets per device read, on average; null before the first. Defaults to null.</summary>
    public double? MeanSendBatch { get; init; }

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
    /// <summary>Handshake initiations sent to the peer; null when the daemon does not say (wireguard-go). Defaults to null.</summary>
    public long? InitiationsSent { get; init; }

    /// <summary>Initiations since the last handshake, none answered; null when the daemon does not say. Defaults to null.</summary>
    public long? InitiationsUnanswered { get; init; }

    /// <summary>When the first unanswered initiation went out; null when none. Defaults to null.</summary>
    public DateTimeOffset? UnansweredSince { get; init; }

    /// <summary>Whether the peer does not answer (<see cref="PeerStatus.IsUnanswered"/>). Defaults to false.</summary>
    public bool Unanswered { get; init; }

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
