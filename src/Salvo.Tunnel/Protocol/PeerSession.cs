using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// What a peer holds only while it speaks: the handshake in progress, the keypairs, the timers, the packets waiting for
/// a handshake, the data path's tallies, the TCP fallback's path and the cached static DH. About 1.5 KB; a
/// <see cref="PeerSessionPool"/> hands them out on a peer's first handshake or packet and takes them back after silence.
/// </summary>
internal sealed class PeerSession : IDisposable
{
    private StaticSecret? _staticSecret;

    public HandshakeState Handshake { get; } = new();

    public PeerTimers Timers { get; } = new();

    public PeerTally SendTally { get; } = new();

    public PeerTally ReceiveTally { get; } = new();

    public Queue<byte[]> Staged { get; } = new();

    /// <summary>Made for the peer it serves (its MAC keys come from the peer's public key).</summary>
    public CookieGenerator Cookies { get; private set; } = null!;

    /// <summary>Made for the peer it serves (its mode and UDP endpoint are the peer's).</summary>
    public PeerPath Path { get; private set; } = null!;

    public bool IsTicking { get; set; }

    public Keypair? Previous { get; set; }

    public Keypair? Current { get; set; }

    public Keypair? Next { get; set; }

    /// <summary>
    /// Whether <paramref name="keypair"/> is one of the session's keys now. A session goes back to the pool only with
    /// no keys, and is served to its next peer with none of this one's, so a data path that checks this after reading
    /// the session never tallies one peer's packets into a session another peer holds.
    /// </summary>
    public bool Holds(Keypair keypair) =>
        ReferenceEquals(keypair, Current) || ReferenceEquals(keypair, Previous) || ReferenceEquals(keypair, Next);

    /// <summary>Readies the session for a peer: its cookie keys and path; everything else was cleared when it came back.</summary>
    public void Serve(TunnelCrypto crypto, ReadOnlySpan<byte> publicKey, TcpFallbackMode pathMode, DatagramAddress endpoint)
    {
        Cookies = new CookieGenerator(crypto, publicKey);
        Path = new PeerPath(pathMode, endpoint);
    }

    public bool TryGetStaticSecret(LocalIdentity local, ReadOnlySpan<byte> publicKey, Span<byte> destination)
    {
        if (StaticSecretFor(local) is not { } secret)
        {
            secret = StaticSecret.Compute(local, publicKey);
            PublishStaticSecret(secret);
        }

        return secret.TryCopyTo(destination);
    }

    /// <summary>The cached static-static secret if it was computed with <paramref name="local"/>; readable from any thread.</summary>
    public StaticSecret? StaticSecretFor(LocalIdentity local) =>
        Volatile.Read(ref _staticSecret) is { } secret && ReferenceEquals(secret.Local, local) ? secret : null;

    /// <summary>Makes <paramref name="secret"/> the cached one (computed outside the engine's lock; the one it replaces is wiped).</summary>
    public void PublishStaticSecret(StaticSecret secret)
    {
        var replaced = Interlocked.Exchange(ref _staticSecret, secret);
        if (replaced is not null && !ReferenceEquals(replaced, secret))
        {
            replaced.Wipe();
        }
    }

    public void ForgetStaticSecret() => Interlocked.Exchange(ref _staticSecret, null)?.Wipe();

    /// <summary>Wipes and clears everything, ready for the next peer (the keypairs were retired by the engine).</summary>
    public void Reset()
    {
        Handshake.Reset();
        Timers.Reset();
        SendTally.Clear();
        ReceiveTally.Clear();
        Staged.Clear();
        ForgetStaticSecret();
        Cookies = null!;
        Path = null!;
        IsTicking = false;
        Previous = Current = Next = null;
    }

    public void Dispose()
    {
        Previous?.Dispose();
        Current?.Dispose();
        Next?.Dispose();
        Handshake.Clear();
        ForgetStaticSecret();
    }
}
