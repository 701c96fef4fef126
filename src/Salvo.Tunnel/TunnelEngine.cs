using System.Security.Cryptography;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel;

/// <summary>
/// The protocol side of one tunnel, with no socket and no device: packets and datagrams go in as bytes, and what
/// must be sent or delivered comes out through an <see cref="ITunnelOutput"/>. Time comes from the given
/// <see cref="TimeProvider"/>, so tests drive handshakes, rekeying and keepalives with a fake clock.
/// </summary>
/// <remarks>
/// Encryption and decryption run outside the engine's lock, so the device's send and receive threads work at once:
/// a send counter is taken atomically, replay windows belong to whoever holds the receive direction's gate, session indices are a concurrent map
/// and a peer's endpoint is replaced whole. The lock guards handshakes, timers, counts and the choice of keys; the
/// data path takes it once per batch to apply what it did (see TunnelEngine.DataPath.cs), and at once for the rare
/// packet that changes state (a new session's first packet, a roamed endpoint, a refusal).
/// </remarks>
public sealed partial class TunnelEngine : IDisposable
{
    private readonly Lock _gate = new();
    private readonly TunnelCrypto _crypto;
    private LocalIdentity? _local;
    private CookieChecker? _cookieChecker;
    private readonly TimeProvider _time;
    private readonly Random _jitter;
    private readonly PeerTable _peers = new();
    private readonly PeerSessionPool _sessions;
    private readonly AllowedIps<Peer> _routes = new();
    private readonly SessionIndices<IndexEntry> _indices = new();
    private volatile int _mtu;
    private readonly ILogger _logger;
    private readonly TunnelMetrics _metrics;

    /// <summary>
    /// Builds the engine for <paramref name="configuration"/>: empty, then given the configuration's change through
    /// <see cref="Configure"/>, the one way keys and peers change, as a control socket's <c>wg setconf</c> would.
    /// </summary>
    /// <param name="configuration">Keys, peers and routes.</param>
    /// <param name="time">The clock. Defaults to the system clock.</param>
    /// <param name="crypto">The primitives. Defaults to <see cref="TunnelCrypto.Default"/>.</param>
    /// <param name="jitter">The source of retransmission jitter. Defaults to <see cref="Random.Shared"/>.</param>
    /// <param name="logger">Where refusals and handshakes are logged. Defaults to <see cref="NullLogger.Instance"/>.</param>
    /// <param name="name">The tunnel's name in metrics (tag <c>salvo.tunnel.name</c>). Defaults to this end's public key.</param>
    internal TunnelEngine(
        TunnelConfiguration configuration, TimeProvider? time = null, TunnelCrypto? crypto = null, Random? jitter = null, ILogger? logger = null, string? name = null)
        : this(configuration?.ToChange() ?? throw new ArgumentNullException(nameof(configuration)), time, crypto, jitter, logger, name)
    {
    }

    /// <summary>Builds the engine for a configuration file's <paramref name="change"/> (see the other constructor).</summary>
    internal TunnelEngine(
        TunnelChange change, TimeProvider? time = null, TunnelCrypto? crypto = null, Random? jitter = null, ILogger? logger = null, string? name = null)
    {
        ArgumentNullException.ThrowIfNull(change);
        var settings = change.Interface ?? new InterfaceSettings();
        _crypto = crypto ?? TunnelCrypto.Default;
        _time = time ?? TimeProvider.System;
        _logger = logger ?? NullLogger.Instance;
        _jitter = jitter ?? Random.Shared;
        _mtu = settings.Mtu;
        settings.TcpFallback.Validate();
        _fallback = settings.TcpFallback;
        _sessions = new PeerSessionPool(_crypto, ScheduleTicks);

        // No output: the engine is not started, so nothing is sent; Start sends the first keepalives.
        Configure(change, output: null);
        _metrics = new TunnelMetrics(Counters, name ?? PublicKey?.ToString() ?? "salvo");
    }

    /// <summary>This end's public key; null while the device has no private key.</summary>
    public WireGuardKey? PublicKey { get; private set; }

    /// <summary>This end's private key; null while there is none.</summary>
    internal WireGuardKey? PrivateKey { get; private set; }

    /// <summary>
    /// Forces every handshake to prove its source address with a cookie first (MAC2). Without it, the engine turns
    /// cookies on by itself when handshakes pass <see cref="HandshakeBudgetPerSecond"/>. Defaults to false.
    /// </summary>
    public bool UnderLoad { get; set; }

    /// <summary>How often <see cref="Tick"/> should run: fine enough for the 333 ms retransmission jitter.</summary>
    internal static TimeSpan TickInterval { get; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// The interface MTU that padding follows: the configured one until the device reads the interface's own (once a
    /// tick, so an <c>ip link set mtu</c> applies within 100 ms). Only padding depends on it: a longer packet is still
    /// carried, up to 65,475 bytes.
    /// </summary>
    internal int Mtu
    {
        get => _mtu;
        set => _mtu = value;
    }

    /// <summary>Counts of what was dropped, and why.</summary>
    public TunnelCounters Counters { get; } = new();

    /// <summary>Starts the persistent keepalives: call once when the device is up, as wg does on configuration.</summary>
    internal void Start(ITunnelOutput output)
    {
        ArgumentNullException.ThrowIfNull(output);
        lock (_gate)
        {
            foreach (var peer in _peers)
            {
                if (peer.PersistentKeepalive > TimeSpan.Zero && peer.Endpoint.HasValue)
                {
                    SendKeepalive(peer, output);
                }
            }
        }
    }

    /// <summary>A snapshot of every peer, as <c>wg show</c> prints it.</summary>
    public IReadOnlyList<PeerStatus> GetPeers()
    {
        lock (_gate)
        {
            return [.. _peers.ToArray().Select(StatusOf)];
        }
    }

    /// <summary>Peers holding a session (keys, timers, queues) now; the others are idle and hold only their configuration.</summary>
    internal int ActivePeers
    {
        get
        {
            lock (_gate)
            {
                return _sessions.Active;
            }
        }
    }

    /// <summary>One peer as <c>wg show</c> prints it; under the lock, and makes no session for an idle peer.</summary>
    private PeerStatus StatusOf(Peer peer)
    {
        var path = peer.IsActive ? peer.Path : null;
        var initiations = peer.InitiationsIfAny;
        return new PeerStatus(
            peer.PublicKeyText,
            ShownEndpoint(peer),
            _routes.PrefixesOf(peer),
            peer.LastHandshake,
            peer.ReceivedBytes,
            peer.SentBytes,
            peer.PersistentKeepalive > TimeSpan.Zero ? peer.PersistentKeepalive : null,
            peer.Current is not null)
        {
            Path = path?.Current ?? Paths.TunnelPath.Udp,
            PathChanged = path?.Changed,
            PathReason = path?.Reason,
            InitiationsSent = initiations?.Sent ?? 0,
            InitiationsUnanswered = initiations?.Unanswered ?? 0,
            UnansweredSince = initiations?.UnansweredSince,
            IsUnanswered = IsUnanswered(peer),
        };
    }

    /// <inheritdoc />
    public void Dispose()
    {
        _metrics.Dispose();
        lock (_gate)
        {
            foreach (var peer in _peers)
            {
                peer.Dispose();
            }

            _indices.Clear();
        }
    }

    /// <summary>The session key a peer sends with now; tests use it to reach counter limits.</summary>
    internal Keypair? CurrentKeypairOf(WireGuardKey publicKey)
    {
        lock (_gate)
        {
            return FindPeer(publicKey.Bytes)?.Current;
        }
    }

    private Peer? FindPeer(ReadOnlySpan<byte> publicKey) => _peers.Find(publicKey);

    /// <summary>The static identity; only handshake code asks, after checking that there is a private key.</summary>
    private LocalIdentity Local => _local ?? throw new InvalidOperationException("The device has no private key.");

    private CookieChecker Checker => _cookieChecker ?? throw new InvalidOperationException("The device has no private key.");

    /// <summary>Takes <paramref name="privateKey"/> (or none) as this end's identity, with what is derived from it.</summary>
    private void UseIdentity(WireGuardKey? privateKey)
    {
        PrivateKey = privateKey;
        _local = privateKey is null ? null : new LocalIdentity(_crypto, privateKey);
        _cookieChecker = _local is null ? null : new CookieChecker(_crypto, _local.PublicKey);
        PublicKey = _local is null ? null : WireGuardKey.FromBytes(_local.PublicKey);
    }

    /// <summary>A fresh random session index not in use (the paper, section 5.4.2: "randomly generated").</summary>
    private uint AllocateIndex(Peer peer)
    {
        Span<byte> random = stackalloc byte[4];
        while (true)
        {
            RandomNumberGenerator.Fill(random);
            var index = BitConverter.ToUInt32(random);
            if (index != 0 && _indices.TryAdd(index, new IndexEntry(peer, null)))
            {
                return index;
            }
        }
    }

    private long Deadline(TimeSpan delay) => _time.GetTimestamp() + (long)(delay.TotalSeconds * _time.TimestampFrequency);

    private TimeSpan Jitter() => TimeSpan.FromMilliseconds(_jitter.Next((int)WireGuardProtocol.RekeyTimeoutJitter.TotalMilliseconds + 1));

    private TimeSpan Age(Keypair keypair) => _time.GetElapsedTime(keypair.CreatedTimestamp);

    private readonly record struct IndexEntry(Peer Peer, Keypair? Keypair);
}
