using System.Security.Cryptography;

namespace Salvo.Tunnel.Protocol;

/// <summary>One peer's handshake in progress: the Noise hash and chaining key, the ephemeral keys, the indices.</summary>
internal sealed class HandshakeState
{
    public HandshakeStage Stage { get; set; }

    public byte[] Hash { get; } = new byte[MessageLayout.KeySize];

    public byte[] ChainingKey { get; } = new byte[MessageLayout.KeySize];

    public byte[] LocalEphemeralPrivate { get; } = new byte[MessageLayout.KeySize];

    public byte[] RemoteEphemeral { get; } = new byte[MessageLayout.KeySize];

    public uint LocalIndex { get; set; }

    public uint RemoteIndex { get; set; }

    /// <summary>The newest initiation timestamp accepted from this peer; an initiation must carry a later one.</summary>
    public byte[] LatestTimestamp { get; } = new byte[Tai64N.Size];

    /// <summary>When the last initiation from this peer was accepted (monotonic), for the 50-per-second limit.</summary>
    public long LastInitiationConsumed { get; set; }

    public bool HasConsumedInitiation { get; set; }

    /// <summary>Whether a response to the current initiation was let through under load without a cookie (once per initiation).</summary>
    public bool ResponseExemptedFromCookie { get; set; }

    /// <summary>When an initiation was last sent early because a cookie reply came (monotonic); 0 when never.</summary>
    public long LastRetryAfterCookie { get; set; }

    /// <summary>Wipes everything, the timestamp and rate-limit state too: the session goes to another peer.</summary>
    public void Reset()
    {
        Clear();
        LatestTimestamp.AsSpan().Clear();
        LastInitiationConsumed = 0;
        HasConsumedInitiation = false;
        ResponseExemptedFromCookie = false;
        LastRetryAfterCookie = 0;
    }

    /// <summary>Wipes the secrets; the timestamp and rate-limit state outlive a handshake on purpose.</summary>
    public void Clear()
    {
        CryptographicOperations.ZeroMemory(Hash);
        CryptographicOperations.ZeroMemory(ChainingKey);
        CryptographicOperations.ZeroMemory(LocalEphemeralPrivate);
        CryptographicOperations.ZeroMemory(RemoteEphemeral);
        LocalIndex = 0;
        RemoteIndex = 0;
        Stage = HandshakeStage.None;
    }
}

/// <summary>Where a handshake stands.</summary>
internal enum HandshakeStage
{
    None,
    InitiationCreated,
    ResponseCreated,
    ResponseConsumed,
}
