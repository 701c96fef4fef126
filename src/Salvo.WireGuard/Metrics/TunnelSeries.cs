using Prometheus;
using Salvo.Tunnel;
using Salvo.Tunnel.Paths;

namespace Salvo.WireGuard.Metrics;

/// <summary>
/// A tunnel's Prometheus series on their own registry. Nothing is counted here: each scrape copies the engine's
/// counters into the series just before they are written, so the data path pays nothing for them. Tunnel-wide series
/// read <see cref="TunnelCounters"/> (lock-free reads); per-peer series take one <see cref="TunnelEngine.GetPeers"/>
/// snapshot a scrape, the one <c>wg show</c> takes, and only when they are on: up to <see cref="MetricsOptions.PerPeerLimit"/>
/// peers, or any number with <c>--metrics-per-peer</c>. Once the peers pass the limit (at the start, or added later
/// with <c>wg set</c>) the per-peer series go for the rest of the run, and the snapshot is no longer taken.
/// </summary>
internal sealed class TunnelSeries
{
    private const string Prefix = "wireguard_salvo_";
    private static readonly TunnelDropReason[] s_reasons = Enum.GetValues<TunnelDropReason>();

    private readonly TunnelCounters _counters;
    private readonly Func<IReadOnlyList<PeerStatus>> _peers;
    private readonly bool _perPeerForced;
    private readonly TimeProvider _clock;
    private readonly Lock _scrape = new();
    private readonly Counter.Child _receivedBytes, _sentBytes, _receivedPackets, _sentPackets;
    private readonly Counter.Child _initiated, _answered, _cookieReplies, _cookieRepliesReceived, _toTcp, _toUdp;
    private readonly Counter.Child _receiveBatches, _receiveBatchDatagrams, _sendBatches, _sendBatchPackets;
    private readonly Counter.Child[] _dropped;
    private readonly Gauge.Child _peerCount, _peersOnTcp, _perPeerShown;
    private readonly Counter _peerReceived, _peerSent;
    private readonly Gauge _peerHandshakeAge, _peerLastHandshake, _peerOnTcp, _peerUnanswered, _peerInitiationsUnanswered;
    private readonly Counter _peerInitiations;
    private readonly string _interface;
    private HashSet<string> _shownPeers = [];
    private bool _tunnelWideOnly;
    private HashSet<string> _shownHandshakes = [];

    /// <param name="interfaceName">The value of every series' <c>interface</c> label.</param>
    /// <param name="counters">The engine's tunnel-wide counters.</param>
    /// <param name="peers">The engine's peer snapshot.</param>
    /// <param name="perPeer">Per-peer series whatever the number of peers (<c>--metrics-per-peer</c>).</param>
    /// <param name="configuredPeers">The peers at the start: above <see cref="MetricsOptions.PerPeerLimit"/>, and without <paramref name="perPeer"/>, only tunnel-wide series from the first scrape.</param>
    /// <param name="clock">The clock of the handshake age. Defaults to the system's.</param>
    public TunnelSeries(string interfaceName, TunnelCounters counters, Func<IReadOnlyList<PeerStatus>> peers, bool perPeer, int configuredPeers, TimeProvider? clock = null)
    {
        _tunnelWideOnly = !perPeer && configuredPeers > MetricsOptions.PerPeerLimit;
        _interface = interfaceName;
        _counters = counters;
        _peers = peers;
        _perPeerForced = perPeer;
        _clock = clock ?? TimeProvider.System;
        Registry = Prometheus.Metrics.NewCustomRegistry();
        var factory = Prometheus.Metrics.WithCustomRegistry(Registry);
        string[] tunnel = ["interface"];
        string[] peer = ["interface", "public_key"];

        Counter.Child TunnelCounter(string name, string help) => factory.CreateCounter(Prefix + name, help, tunnel).WithLabels(interfaceName);
        _receivedBytes = TunnelCounter("received_bytes_total", "Bytes of the IP packets decrypted and delivered to the device.");
        _sentBytes = TunnelCounter("sent_bytes_total", "Bytes of the IP packets encrypted and sent (before padding and encryption).");
        _receivedPackets = TunnelCounter("received_packets_total", "IP packets decrypted, authenticated, allowed and delivered to the device.");
        _sentPackets = TunnelCounter("sent_packets_total", "IP packets from the device encrypted and sent.");
        _cookieReplies = TunnelCounter("cookie_replies_sent_total", "Cookie replies sent while under load.");
        _cookieRepliesReceived = TunnelCounter("cookie_replies_received_total", "Cookie replies received: a peer under load asked for our cookie.");
        // Batch sizes as two counters each: rate(datagrams) / rate(batches) is the mean batch over any window (docs/metrics.md).
        _receiveBatches = TunnelCounter("receive_batches_total", "Receives from the UDP socket that returned datagrams.");
        _receiveBatchDatagrams = TunnelCounter("receive_batch_datagrams_total", "Datagrams those receives returned.");
        _sendBatches = TunnelCounter("send_batches_total", "Reads from the TUN device that returned packets.");
        _sendBatchPackets = TunnelCounter("send_batch_packets_total", "Packets those reads returned.");
        var handshakes = factory.CreateCounter(Prefix + "handshakes_total", "Handshakes completed, by role: initiator (a response accepted), responder (an initiation answered).", "interface", "role");
        _initiated = handshakes.WithLabels(interfaceName, "initiator");
        _answered = handshakes.WithLabels(interfaceName, "responder");
        var switches = factory.CreateCounter(Prefix + "path_switches_total", "Peers moved between UDP and the TCP fallback, by the path moved to (tcp, udp).", "interface", "to");
        _toTcp = switches.WithLabels(interfaceName, "tcp");
        _toUdp = switches.WithLabels(interfaceName, "udp");
        var dropped = factory.CreateCounter(Prefix + "dropped_total", "Datagrams, packets and TCP connections dropped, by reason (TunnelDropReason in snake_case).", "interface", "reason");
        _dropped = [.. s_reasons.Select(reason => dropped.WithLabels(interfaceName, TunnelCounters.NameOf(reason)))];

        _peerCount = factory.CreateGauge(Prefix + "peers", "Configured peers; shown while the per-peer series are on.", tunnel, UnsetHidden).WithLabels(interfaceName);
        _peersOnTcp = factory.CreateGauge(Prefix + "peers_on_tcp", "Peers whose messages go over the TCP fallback now; shown while the per-peer series are on.", tunnel, UnsetHidden).WithLabels(interfaceName);
        _perPeerShown = factory.CreateGauge(Prefix + "per_peer_series", $"1 when the per-peer series are shown: up to {PerPeerLimitText} peers, or any number with --metrics-per-peer.", tunnel).WithLabels(interfaceName);

        _peerReceived = factory.CreateCounter(Prefix + "peer_received_bytes_total", "Bytes of authenticated datagrams received from the peer.", peer);
        _peerSent = factory.CreateCounter(Prefix + "peer_sent_bytes_total", "Bytes of datagrams sent to the peer.", peer);
        _peerLastHandshake = factory.CreateGauge(Prefix + "peer_last_handshake_seconds", "When the peer's last handshake completed, seconds since the Unix epoch; no series before the first.", peer);
        _peerHandshakeAge = factory.CreateGauge(Prefix + "peer_handshake_age_seconds", "Seconds since the peer's last handshake completed, at the scrape; no series before the first.", peer);
        _peerOnTcp = factory.CreateGauge(Prefix + "peer_path_tcp", "1 while the peer's messages go over the TCP fallback, 0 over UDP.", peer);
        _peerInitiations = factory.CreateCounter(Prefix + "peer_handshake_initiations_total", "Handshake initiations sent to the peer.", peer);
        _peerInitiationsUnanswered = factory.CreateGauge(Prefix + "peer_handshake_initiations_unanswered", "Initiations sent to the peer since its last answer.", peer);
        _peerUnanswered = factory.CreateGauge(Prefix + "peer_unanswered", "1 while the peer does not answer (3 or more initiations over 15 s or more without a response: a wrong key, endpoint or a firewall), else 0.", peer);
        Registry.AddBeforeCollectCallback(Update);
    }

    /// <summary>The registry the scrape endpoint writes.</summary>
    public CollectorRegistry Registry { get; }

    /// <summary>No series until first set: a peer count of 0 where it is not counted would be a wrong answer.</summary>
    private static GaugeConfiguration UnsetHidden => new() { SuppressInitialValue = true };

    private static string PerPeerLimitText => MetricsOptions.PerPeerLimit.ToString("N0", System.Globalization.CultureInfo.InvariantCulture);


    private void Update()
    {
        lock (_scrape)
        {
            var counters = _counters;
            _receivedBytes.IncTo(counters.BytesReceived);
            _sentBytes.IncTo(counters.BytesSent);
            _receivedPackets.IncTo(counters.PacketsReceived);
            _sentPackets.IncTo(counters.PacketsSent);
            _initiated.IncTo(counters.HandshakesInitiated);
            _answered.IncTo(counters.HandshakesAnswered);
            _cookieReplies.IncTo(counters.CookieRepliesSent);
            _cookieRepliesReceived.IncTo(counters.CookieRepliesReceived);
            _receiveBatches.IncTo(counters.ReceiveBatches);
            _receiveBatchDatagrams.IncTo(counters.DatagramsInReceiveBatches);
            _sendBatches.IncTo(counters.SendBatches);
            _sendBatchPackets.IncTo(counters.PacketsInSendBatches);
            _toTcp.IncTo(counters.PathSwitchesToTcp);
            _toUdp.IncTo(counters.PathSwitchesToUdp);
            for (var i = 0; i < s_reasons.Length; i++)
            {
                _dropped[i].IncTo(counters[s_reasons[i]]);
            }

            UpdatePeers();
        }
    }

    private void UpdatePeers()
    {
        // Past the limit the snapshot is not taken again: at 10,000 peers it is the scrape's main cost, under the engine's lock.
        if (_tunnelWideOnly)
        {
            return;
        }

        var peers = _peers();
        var show = _perPeerForced || peers.Count <= MetricsOptions.PerPeerLimit;
        _tunnelWideOnly = !show;
        _peerCount.Set(peers.Count);
        _peersOnTcp.Set(peers.Count(peer => peer.Path == TunnelPath.Tcp));
        _perPeerShown.Set(show ? 1 : 0);
        var shown = new HashSet<string>(show ? peers.Count : 0, StringComparer.Ordinal);
        var handshakes = new HashSet<string>(StringComparer.Ordinal);
        if (show)
        {
            var now = _clock.GetUtcNow();
            foreach (var peer in peers)
            {
                var key = peer.PublicKey.ToString();
                shown.Add(key);
                _peerReceived.WithLabels(_interface, key).IncTo(peer.ReceivedBytes);
                _peerSent.WithLabels(_interface, key).IncTo(peer.SentBytes);
                _peerOnTcp.WithLabels(_interface, key).Set(peer.Path == TunnelPath.Tcp ? 1 : 0);
                _peerInitiations.WithLabels(_interface, key).IncTo(peer.InitiationsSent);
                _peerInitiationsUnanswered.WithLabels(_interface, key).Set(peer.InitiationsUnanswered);
                _peerUnanswered.WithLabels(_interface, key).Set(peer.IsUnanswered ? 1 : 0);
                if (peer.LatestHandshake is { } handshake)
                {
                    handshakes.Add(key);
                    _peerLastHandshake.WithLabels(_interface, key).Set(handshake.ToUnixTimeMilliseconds() / 1000.0);
                    _peerHandshakeAge.WithLabels(_interface, key).Set(Math.Max(0, (now - handshake).TotalSeconds));
                }
            }
        }

        // A removed peer's series go with it, so a wg set ... remove does not leave them behind for ever.
        foreach (var gone in _shownPeers.Where(key => !shown.Contains(key)))
        {
            _peerReceived.RemoveLabelled(_interface, gone);
            _peerSent.RemoveLabelled(_interface, gone);
            _peerOnTcp.RemoveLabelled(_interface, gone);
            _peerInitiations.RemoveLabelled(_interface, gone);
            _peerInitiationsUnanswered.RemoveLabelled(_interface, gone);
            _peerUnanswered.RemoveLabelled(_interface, gone);
        }

        foreach (var gone in _shownHandshakes.Where(key => !handshakes.Contains(key)))
        {
            _peerLastHandshake.RemoveLabelled(_interface, gone);
            _peerHandshakeAge.RemoveLabelled(_interface, gone);
        }

        _shownPeers = shown;
        _shownHandshakes = handshakes;
    }
}
