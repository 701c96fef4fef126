using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The engine's spare <see cref="PeerSession"/>s: a peer takes one when it first speaks and gives it back after
/// silence, so peers that come and go reuse the same few thousand instead of making garbage. Keeps at most
/// <see cref="MaxKept"/> (a burst of 10,000 handshakes leaves at most that many behind). Used under the engine's lock.
/// </summary>
internal sealed class PeerSessionPool(TunnelCrypto crypto, Action<Peer> activated)
{
    /// <summary>Sessions kept for reuse; more are left to the garbage collector (about 1.5 KB each, so 6 MB at most).</summary>
    public const int MaxKept = 4_096;

    private readonly Stack<PeerSession> _spare = new();

    /// <summary>
    /// Every peer's endpoint address. It rides with the pool because the pool is what all of one engine's peers already
    /// share, and a peer keeps its own entry current.
    /// </summary>
    public EndpointAddresses Addresses { get; } = new();

    /// <summary>Peers with a session now.</summary>
    public int Active { get; private set; }

    public PeerSession Rent(ReadOnlySpan<byte> publicKey, TcpFallbackMode pathMode, DatagramAddress endpoint)
    {
        var session = _spare.TryPop(out var spare) ? spare : new PeerSession();
        session.Serve(crypto, publicKey, pathMode, endpoint);
        Active++;
        return session;
    }

    /// <summary>A session for a removed peer: served like a rented one, but neither counted, scheduled nor ever pooled.</summary>
    public PeerSession Detached(ReadOnlySpan<byte> publicKey, TcpFallbackMode pathMode, DatagramAddress endpoint)
    {
        var session = new PeerSession();
        session.Serve(crypto, publicKey, pathMode, endpoint);
        return session;
    }

    /// <summary>Lets the engine wire the new session's timers to its tick (called once the peer holds the session).</summary>
    public void Activated(Peer peer) => activated(peer);

    public void Return(PeerSession session)
    {
        Active--;
        session.Reset();
        if (_spare.Count < MaxKept)
        {
            _spare.Push(session);
        }
    }

    /// <summary>A removed peer's session: counted out, not reused (the engine disposed its keys).</summary>
    public void Forget() => Active--;
}
