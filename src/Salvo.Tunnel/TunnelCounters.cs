namespace Salvo.Tunnel;

/// <summary>Why packets were dropped; each count only grows. Updated under the engine's lock.</summary>
public sealed class TunnelCounters
{
    /// <summary>Packets from the device with no peer for their destination (no AllowedIPs match) or no endpoint.</summary>
    public long NoRoute { get; internal set; }

    /// <summary>Datagrams that were not a well-formed message, failed MAC1, or named an unknown index.</summary>
    public long Invalid { get; internal set; }

    /// <summary>Datagrams whose authentication tag or handshake did not verify.</summary>
    public long NotAuthenticated { get; internal set; }

    /// <summary>Transport messages with a counter seen before or too old for the window.</summary>
    public long Replayed { get; internal set; }

    /// <summary>Decrypted packets whose source address is not in the sending peer's AllowedIPs.</summary>
    public long SourceNotAllowed { get; internal set; }

    /// <summary>Messages under a key older than REJECT_AFTER_TIME.</summary>
    public long Expired { get; internal set; }

    /// <summary>Cookie replies sent because of load.</summary>
    public long CookieRepliesSent { get; internal set; }

    /// <summary>Packets dropped from a full staging queue, or when handshake attempts gave up.</summary>
    public long StagedDropped { get; internal set; }
}
