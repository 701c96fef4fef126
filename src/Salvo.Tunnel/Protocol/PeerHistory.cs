namespace Salvo.Tunnel.Protocol;

/// <summary>
/// What a peer keeps once it has spoken, session or not: what <c>wg show</c> reports (byte counts, the last handshake,
/// initiations), and the newest initiation timestamp accepted from it, so a recorded initiation is refused however long
/// the peer was idle (WireGuard keeps it for the device's life too). About 150 bytes, only for peers that spoke.
/// </summary>
internal sealed class PeerHistory
{
    public DateTimeOffset? LastHandshake { get; set; }

    public long ReceivedBytes { get; set; }

    public long SentBytes { get; set; }

    public PeerInitiations Initiations { get; } = new();

    /// <summary>The newest TAI64N timestamp accepted while the peer had no session (copied in and out of its handshake).</summary>
    public byte[] LatestTimestamp { get; } = new byte[Tai64N.Size];
}
