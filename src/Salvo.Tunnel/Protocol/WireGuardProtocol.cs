namespace Salvo.Tunnel.Protocol;

/// <summary>The protocol's published constants (the WireGuard paper, sections 5.4 and 6; its protocol page).</summary>
internal static class WireGuardProtocol
{
    /// <summary>The Noise construction name; its hash is the first chaining key.</summary>
    public const string Construction = "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s";

    /// <summary>Mixed into the first hash so no other protocol shares these handshakes.</summary>
    public const string Identifier = "WireGuard v1 zx2c4 Jason@zx2c4.com";

    /// <summary>Label hashed with the receiver's public key to key MAC1.</summary>
    public const string LabelMac1 = "mac1----";

    /// <summary>Label hashed with the sender's public key to key the cookie cipher.</summary>
    public const string LabelCookie = "cookie--";

    /// <summary>After this many messages under one key the initiator starts a new handshake.</summary>
    public const ulong RekeyAfterMessages = 1UL << 60;

    /// <summary>2^64 - 2^13 - 1: no key is used past this counter, which keeps the replay window below 2^64.</summary>
    public const ulong RejectAfterMessages = ulong.MaxValue - (1UL << 13);

    /// <summary>Handshake attempts before giving up: REKEY_ATTEMPT_TIME / REKEY_TIMEOUT.</summary>
    public const int MaxHandshakeAttempts = 18;

    /// <summary>An initiator whose key is this old starts a new handshake on its next send.</summary>
    public static readonly TimeSpan RekeyAfterTime = TimeSpan.FromSeconds(120);

    /// <summary>No key older than this sends or receives.</summary>
    public static readonly TimeSpan RejectAfterTime = TimeSpan.FromSeconds(180);

    /// <summary>How long to keep retrying a handshake before dropping the packets that wait for it.</summary>
    public static readonly TimeSpan RekeyAttemptTime = TimeSpan.FromSeconds(90);

    /// <summary>Retransmit an unanswered initiation after this (plus jitter); also the least gap between initiations.</summary>
    public static readonly TimeSpan RekeyTimeout = TimeSpan.FromSeconds(5);

    /// <summary>Send an empty packet this long after receiving data when nothing else has been sent.</summary>
    public static readonly TimeSpan KeepaliveTimeout = TimeSpan.FromSeconds(10);

    /// <summary>The upper bound of the random delay added to each retransmission, so peers do not retry in lockstep.</summary>
    public static readonly TimeSpan RekeyTimeoutJitter = TimeSpan.FromMilliseconds(333);

    /// <summary>A received cookie is used for MAC2 this long; the responder's secret changes as often.</summary>
    public static readonly TimeSpan CookieRefreshTime = TimeSpan.FromSeconds(120);

    /// <summary>
    /// Initiations from one peer faster than this are dropped (50 per second, as the reference implementations
    /// do), so a replayed burst cannot make the responder compute Diffie-Hellman at line rate.
    /// </summary>
    public static readonly TimeSpan InitiationMinimumInterval = TimeSpan.FromMilliseconds(20);
}
