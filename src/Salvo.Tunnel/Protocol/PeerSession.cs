using System.Security.Cryptography;
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
    private readonly byte[] _staticSecret = new byte[MessageLayout.KeySize];
    private StaticSecret _staticSecretState;

    private enum StaticSecret
    {
        NotComputed,
        Valid,
        Invalid,
    }

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
        if (_staticSecretState == StaticSecret.NotComputed)
        {
            _staticSecretState = local.Crypto.KeyAgreement.TryAgree(local.PrivateKey, publicKey, _staticSecret) ? StaticSecret.Valid : StaticSecret.Invalid;
        }

        if (_staticSecretState != StaticSecret.Valid)
        {
            return false;
        }

        _staticSecret.CopyTo(destination);
        return true;
    }

    public void ForgetStaticSecret()
    {
        CryptographicOperations.ZeroMemory(_staticSecret);
        _staticSecretState = StaticSecret.NotComputed;
    }

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
