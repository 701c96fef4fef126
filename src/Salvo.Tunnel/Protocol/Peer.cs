using System.Runtime.CompilerServices;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// Everything the engine keeps about one peer. An idle peer is its keys, endpoint and keepalive (its AllowedIPs live in
/// the routing trie): about 500 bytes with its share of the tables, so a million fit in half a gigabyte. What a peer
/// needs only while it speaks (handshake, keypairs, timers, waiting packets, the data path's tallies, the TCP fallback's
/// path) is a <see cref="PeerSession"/>, taken from the engine's pool on first use and given back once the peer has
/// been silent past the key lifetime (see TunnelEngine.Timers.cs). What <c>wg show</c> reports and the replay guard
/// of its initiations outlive the session in a <see cref="PeerHistory"/>, made the first time the peer speaks.
/// </summary>
internal sealed class Peer : IDisposable, IRouteOwner
{
    /// <summary>Packets kept while a handshake is under way; the oldest are dropped past this (the reference keeps 128).</summary>
    public const int StagedPacketLimit = 128;

    /// <summary>The zeros a peer without a preshared key mixes (shared, never written: a preshared key is set by replacing it).</summary>
    private static readonly byte[] s_noPresharedKey = new byte[MessageLayout.KeySize];

    /// <summary>The timestamp of a peer never heard from: any real initiation's is after it.</summary>
    private static readonly byte[] s_noTimestamp = new byte[Tai64N.Size];

    private readonly PeerSessionPool _sessions;
    private readonly KeyBytes _publicKey;
    private volatile EndpointBox? _endpoint;
    private PeerSession? _session;
    private PeerHistory? _history;
    private bool _removed;

    public Peer(WireGuardKey publicKey, TcpFallbackMode pathMode, PeerSessionPool sessions)
        : this((publicKey ?? throw new ArgumentNullException(nameof(publicKey))).Bytes, pathMode, sessions)
    {
    }

    /// <summary>A peer with these 32 key bytes.</summary>
    public Peer(ReadOnlySpan<byte> publicKey, TcpFallbackMode pathMode, PeerSessionPool sessions)
    {
        publicKey[..WireGuardKey.Size].CopyTo(_publicKey);
        PathMode = pathMode;
        _sessions = sessions;
    }

    /// <summary>The public key as an object, made on each call: for log lines and listings, not for the data path.</summary>
    public WireGuardKey PublicKeyText => WireGuardKey.FromBytes(_publicKey);

    /// <summary>The public key's bytes, held in the peer itself (a key object and its array took 80 bytes more).</summary>
    public ReadOnlySpan<byte> PublicKey => _publicKey;

    /// <inheritdoc />
    public byte[]? OwnedPrefixes { get; set; }

    /// <summary>The preshared key, or 32 zero bytes when none is set (the protocol mixes zeros then). Read only: set it with <see cref="SetPresharedKey"/>.</summary>
    public byte[] PresharedKey { get; private set; } = s_noPresharedKey;

    /// <summary>Whether the TCP fallback may carry this peer's messages (the configuration file's <c>TcpFallback</c>).</summary>
    public TcpFallbackMode PathMode { get; }

    /// <summary>
    /// Where to send: the configured endpoint, then the source of the last authenticated packet (roaming). Held in an
    /// immutable box, so the sending thread reads it whole while the receiving thread moves it (a 32-byte struct could
    /// tear); a box is made only when the address changes.
    /// </summary>
    public DatagramAddress Endpoint
    {
        get => _endpoint?.Value ?? default;
        set
        {
            var old = Endpoint;
            if (!old.Equals(value))
            {
                _endpoint = value.HasValue ? new EndpointBox(value) : null;
                _sessions.Addresses.Move(old, value);
            }
        }
    }

    public TimeSpan PersistentKeepalive { get; set; }

    /// <summary>Whether the peer holds a session now (it spoke, or was spoken to, within the key lifetime).</summary>
    public bool IsActive => _session is not null;

    /// <summary>The peer's session, taken from the pool if it has none: only under the engine's lock.</summary>
    public PeerSession Session => _session ?? Activate();

    /// <summary>
    /// The session if the peer has one now, never making one: the data path reads it once, without the engine's lock,
    /// and tallies into it only while it still holds the key the packet used (<see cref="PeerSession.Holds"/>).
    /// </summary>
    public PeerSession? SessionIfActive => Volatile.Read(ref _session);

    /// <summary>The newest initiation timestamp accepted from the peer (zeros before any), read without making a session.</summary>
    public ReadOnlySpan<byte> LatestTimestamp => _session?.Handshake.LatestTimestamp ?? _history?.LatestTimestamp ?? s_noTimestamp;

    /// <summary>What outlives the session; made the first time the peer becomes active.</summary>
    public PeerHistory History => _history ??= new PeerHistory();

    /// <summary>Which path (UDP or TCP) messages go over, and the fallback's timers.</summary>
    public PeerPath Path => Session.Path;

    public HandshakeState Handshake => Session.Handshake;

    /// <summary>Initiations sent, and how many in a row went unanswered.</summary>
    public PeerInitiations Initiations => History.Initiations;

    /// <summary>Initiations sent and unanswered, for show; null before the peer ever sent one.</summary>
    public PeerInitiations? InitiationsIfAny => _history?.Initiations;

    public CookieGenerator Cookies => Session.Cookies;

    public PeerTimers Timers => Session.Timers;

    /// <summary>The device-to-network direction's work for this peer in the current batch.</summary>
    public PeerTally SendTally => Session.SendTally;

    /// <summary>The network-to-device direction's work for this peer in the current batch.</summary>
    public PeerTally ReceiveTally => Session.ReceiveTally;

    /// <summary>Whether the engine's tick visits this peer (a deadline is armed or the path is away from rest).</summary>
    public bool IsTicking
    {
        get => _session?.IsTicking ?? false;
        set => Session.IsTicking = value;
    }

    /// <summary>The keypairs: reading one never makes a session (the data path reads <see cref="Current"/> without the lock).</summary>
    public Keypair? Previous
    {
        get => _session?.Previous;
        set => Session.Previous = value;
    }

    public Keypair? Current
    {
        get => _session?.Current;
        set => Session.Current = value;
    }

    /// <summary>The responder's new keys, used once the initiator's first packet under them arrives.</summary>
    public Keypair? Next
    {
        get => _session?.Next;
        set => Session.Next = value;
    }

    public Queue<byte[]> Staged => Session.Staged;

    /// <summary>Packets waiting for a handshake, without making a session to count none.</summary>
    public int StagedCount => _session?.Staged.Count ?? 0;

    public DateTimeOffset? LastHandshake
    {
        get => _history?.LastHandshake;
        set => History.LastHandshake = value;
    }

    public long ReceivedBytes
    {
        get => _history?.ReceivedBytes ?? 0;
        set => History.ReceivedBytes = value;
    }

    public long SentBytes
    {
        get => _history?.SentBytes ?? 0;
        set => History.SentBytes = value;
    }

    /// <summary>
    /// Whether the session can go back to the pool: no keys, no handshake under way, nothing waiting or tallied, no
    /// timer, no keepalive to send, and no TCP connection or dial (TcpFallback = only always dials). A UDP path still
    /// waiting for an answer is let go too: with the keys gone there is no session to carry over TCP, and the next
    /// session starts its path afresh. The data path reaches a session only through a key, and the keys were zeroed
    /// when their 540 s ran out (and refused at 180 s), so no thread still holds this one.
    /// </summary>
    public bool CanLetGo => _session is { } session
        && session.Previous is null && session.Current is null && session.Next is null
        && session.Handshake.Stage == HandshakeStage.None && session.Staged.Count == 0
        && !session.SendTally.IsListed && !session.ReceiveTally.IsListed
        && !session.Timers.AnyArmed && session.Path.Mode != TcpFallbackMode.Only && !session.Path.DialPending
        && !session.Path.TcpAddress.HasValue && !session.Path.DialedAddress.HasValue
        && PersistentKeepalive == TimeSpan.Zero;

    /// <summary>Sets the preshared key, or none (zeros); the old key's bytes are wiped.</summary>
    public void SetPresharedKey(WireGuardKey? presharedKey)
    {
        var old = PresharedKey;
        PresharedKey = presharedKey is null ? s_noPresharedKey : presharedKey.Bytes.ToArray();
        if (!ReferenceEquals(old, s_noPresharedKey))
        {
            System.Security.Cryptography.CryptographicOperations.ZeroMemory(old);
        }
    }

    /// <summary>
    /// DH(our static private, peer static public), computed once a session; false for a low-order peer key. An idle
    /// peer gets it computed afresh and stays idle: anyone who knows a peer's public key (it is not secret) can send an
    /// initiation naming it, and only the timestamp, decrypted with this secret, shows the sender holds its private key.
    /// </summary>
    public bool TryGetStaticSecret(LocalIdentity local, Span<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(local);
        return _session is { } session
            ? session.TryGetStaticSecret(local, PublicKey, destination)
            : local.Crypto.KeyAgreement.TryAgree(local.PrivateKey, PublicKey, destination);
    }

    /// <summary>Drops the cached DH result: this end's private key changed (it is computed again on the next handshake).</summary>
    public void ForgetStaticSecret() => _session?.ForgetStaticSecret();

    /// <summary>Gives the session back to the pool (the caller checked <see cref="CanLetGo"/>), keeping what outlives it.</summary>
    public void LetGo()
    {
        if (_session is { } session)
        {
            session.Handshake.LatestTimestamp.CopyTo(History.LatestTimestamp);
            _session = null;
            _sessions.Return(session);
        }
    }

    public void Dispose()
    {
        if (_session is { } session)
        {
            session.Dispose();
            _session = null;
            if (!_removed)
            {
                _sessions.Forget();
            }
        }

        _removed = true;
        SetPresharedKey(null);
        Endpoint = default;
    }

    private PeerSession Activate()
    {
        if (_removed)
        {
            // Removed, but still held by a thread that found it before: a data path between its decryption and its
            // tally, a roam, a control listing. What it touches now goes to a session of its own, never one the pool,
            // the tick or the active count knows, so nothing of a removed peer is scheduled, counted or reused.
            return _session = _sessions.Detached(PublicKey, PathMode, Endpoint);
        }

        var session = _sessions.Rent(PublicKey, PathMode, Endpoint);
        if (_history is { } history)
        {
            history.LatestTimestamp.CopyTo(session.Handshake.LatestTimestamp);
        }
        else
        {
            _history = new PeerHistory();
        }

        _session = session;
        _sessions.Activated(this);
        return session;
    }

    private sealed record EndpointBox(DatagramAddress Value);

    [InlineArray(WireGuardKey.Size)]
    private struct KeyBytes
    {
        private byte _first;
    }
}
