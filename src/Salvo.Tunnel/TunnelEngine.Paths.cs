using System.Globalization;
using Salvo.Streams;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

/// <summary>
/// The TCP fallback's decisions: the same WireGuard messages go over UDP or over one framed TCP connection per peer.
/// A TCP connection is named by a <see cref="TcpPathAddress"/>, so sending to a peer is still sending to its endpoint
/// and the replay window, counters and keys are shared by both paths: a message that arrives on the old path after
/// a switch is accepted once, and a second copy of it is refused as a replay.
/// </summary>
public sealed partial class TunnelEngine
{
    private readonly TcpFallbackOptions _fallback;
    private ITcpPathConnector? _connector;

    /// <summary>Where the engine asks for TCP connections; none keeps every peer on UDP.</summary>
    internal void UseTcpPaths(ITcpPathConnector connector)
    {
        lock (_gate)
        {
            _connector = connector;
        }
    }

    /// <summary>A TCP connection the engine asked for is open: move the peer to it if it still needs it, else close it.</summary>
    internal void OnTcpPathOpened(WireGuardKey publicKey, DatagramAddress address)
    {
        lock (_gate)
        {
            var peer = FindPeer(publicKey.Bytes);
            if (peer is null)
            {
                _connector?.Close(address, TimeSpan.Zero);
                return;
            }

            var path = peer.Path;
            path.DialPending = false;
            path.DialSchedule = null;
            if (path.Current == TunnelPath.Udp && (path.Mode == TcpFallbackMode.Only || path.SilentSince != 0))
            {
                MoveToTcp(peer, address, dialed: true, path.DialReason ?? "TCP fallback");
            }
            else
            {
                // An authenticated UDP packet came while the connection was being opened: UDP works after all.
                _connector?.Close(address, TimeSpan.Zero);
            }
        }
    }

    /// <summary>A TCP connection the engine asked for could not be opened: stay on UDP and try again later.</summary>
    internal void OnTcpDialFailed(WireGuardKey publicKey, string error)
    {
        lock (_gate)
        {
            if (FindPeer(publicKey.Bytes) is not { } peer)
            {
                return;
            }

            var path = peer.Path;
            path.DialPending = false;
            path.SilentSince = 0;
            path.ProbeSent = 0;
            path.DialSchedule ??= NewSchedule();
            var wait = path.DialSchedule.Next();
            path.NextDialAllowed = Deadline(wait);
            TunnelLog.TcpFallbackFailed(_logger, peer.PublicKeyText.ToString(), path.UdpEndpoint.ToString(), error, wait.TotalSeconds);
        }
    }

    /// <summary>A TCP connection closed: a peer that was on it goes back to UDP.</summary>
    internal void OnTcpPathClosed(DatagramAddress address)
    {
        lock (_gate)
        {
            foreach (var peer in _peers)
            {
                if (!peer.IsActive)
                {
                    // An idle peer has no connection.
                    continue;
                }

                var path = peer.Path;
                if (path.DialedAddress == address)
                {
                    path.DialedAddress = default;
                }

                if (path.TcpAddress != address)
                {
                    continue;
                }

                // The other connection, when both ends dialed, carries on; with none left the peer goes back to UDP.
                path.TcpAddress = path.DialedAddress;
                if (path.Current == TunnelPath.Tcp)
                {
                    if (path.TcpAddress.HasValue)
                    {
                        MoveEndpoint(peer, path.TcpAddress);
                    }
                    else
                    {
                        MoveToUdp(peer, "the TCP connection closed");
                    }
                }
            }
        }
    }

    /// <summary>
    /// Roaming over two paths: called with the source of every authenticated message. UDP sources are followed as
    /// WireGuard follows them; a peer on TCP that is heard over UDP goes back to UDP (the probe was answered). A TCP
    /// source is followed only once UDP has been quiet for <see cref="TcpFallbackOptions.ProbeAfter"/>, so messages
    /// still arriving on a connection that was just left do not pull traffic back onto it.
    /// </summary>
    private void Roam(Peer peer, DatagramAddress source)
    {
        var path = peer.Path;
        if (TcpPathAddress.IsTcp(source))
        {
            if (path.Mode == TcpFallbackMode.Off)
            {
                return;
            }

            _connector?.Authenticated(source);
            if (path.Current == TunnelPath.Tcp)
            {
                // Both ends may have dialed at once: answer on the connection the peer sends on.
                path.TcpAddress = source;
                path.TcpSilentSince = 0;

                MoveEndpoint(peer, source);
                return;
            }

            if (path.LastUdpReceive == 0 || _time.GetElapsedTime(path.LastUdpReceive) >= _fallback.ProbeAfter)
            {
                MoveToTcp(peer, source, dialed: false, "the peer sends over TCP");
            }
            else
            {
                path.TcpAddress = source;
            }

            return;
        }

        path.UdpEndpoint = source;
        path.LastUdpReceive = _time.GetTimestamp();
        path.SilentSince = 0;
        path.ProbeSent = 0;
        if (path.Mode == TcpFallbackMode.Only)
        {
            return;
        }

        MoveEndpoint(peer, source);
        if (path.Current == TunnelPath.Tcp)
        {
            MoveToUdp(peer, path.UdpProbes > 0
                ? string.Create(CultureInfo.InvariantCulture, $"UDP probe {path.UdpProbes} was answered")
                : "an authenticated UDP datagram arrived");
        }
    }

    /// <summary>
    /// Data or a handshake initiation went out: the start of a silence that an authenticated packet back ends, on
    /// either path. Initiations count so that UDP blocked from the start (no session, so no data) is found too.
    /// </summary>
    private void OnAnswerExpected(Peer peer)
    {
        var path = peer.Path;
        if (path.Current == TunnelPath.Udp)
        {
            if (path.SilentSince == 0)
            {
                path.SilentSince = _time.GetTimestamp();
            }
        }
        else if (path.TcpSilentSince == 0)
        {
            path.TcpSilentSince = _time.GetTimestamp();
        }
    }

    /// <summary>Runs each peer's path timers: the check of a silent UDP path, the switch to TCP, and the UDP probes while on TCP.</summary>
    private void TickPaths(Peer peer, long now, ITunnelOutput output)
    {
        var path = peer.Path;
        if (_connector is null || path.Mode == TcpFallbackMode.Off || !path.UdpEndpoint.HasValue)
        {
            return;
        }

        if (path.Current == TunnelPath.Tcp)
        {
            if (path.TcpSilentSince != 0 && _time.GetElapsedTime(path.TcpSilentSince, now) >= _fallback.DeadConnectionAfter)
            {
                LeaveDeadConnection(peer, now);
                return;
            }

            if (path.HandshakeOverTcp)
            {
                path.HandshakeOverTcp = false;
                if (!InitiatedOverTcp(peer))
                {
                    SendProbe(peer, peer.Endpoint, output);
                }
            }

            if (path.DialedAddress.HasValue && path.Mode == TcpFallbackMode.Auto && PeerTimers.IsDue(path.NextUdpProbe, now)
                && !AwaitsHandshakeOverTcp(peer, now))
            {
                path.UdpProbes++;
                path.NextUdpProbe = Deadline(path.ProbeSchedule!.Next());
                SendProbe(peer, path.UdpEndpoint, output);
                path.UdpProbeInitiation = peer.Timers.LastInitiationSent;
            }

            return;
        }

        if (path.DialPending || now < path.NextDialAllowed)
        {
            return;
        }

        if (path.Mode == TcpFallbackMode.Only)
        {
            Dial(peer, "TcpFallback = only");
            return;
        }

        if (path.SilentSince == 0)
        {
            return;
        }

        if (path.ProbeSent == 0)
        {
            // One probe per REKEY_TIMEOUT at most: data that only flows one way is answered by nothing but the probe,
            // so without the limit it would cost a handshake every ProbeAfter.
            if (_time.GetElapsedTime(path.SilentSince, now) >= _fallback.ProbeAfter
                && (path.LastProbe == 0 || _time.GetElapsedTime(path.LastProbe, now) >= WireGuardProtocol.RekeyTimeout))
            {
                path.ProbeSent = now;
                path.LastProbe = now;
                SendProbe(peer, peer.Endpoint, output);
            }

            return;
        }

        var waited = _time.GetElapsedTime(path.ProbeSent, now);
        if (waited < _fallback.ProbeTimeout)
        {
            // Hysteresis against loss: one lost initiation or response (about 1 in 10 at 5 % loss each way) must not
            // move a working path, so the handshake goes once more halfway; both lost is about 1 in 100.
            if (!path.ProbeRepeated && waited >= _fallback.ProbeTimeout / 2)
            {
                path.ProbeRepeated = true;
                SendProbe(peer, peer.Endpoint, output);
            }

            return;
        }

        var reason = string.Create(CultureInfo.InvariantCulture,
            $"no authenticated UDP datagram for {_time.GetElapsedTime(path.SilentSince, now).TotalMilliseconds:0} ms after sending, and a handshake went unanswered for {_time.GetElapsedTime(path.ProbeSent, now).TotalMilliseconds:0} ms");
        if (path.TcpAddress.HasValue)
        {
            MoveToTcp(peer, path.TcpAddress, dialed: path.TcpAddress == path.DialedAddress, reason);
        }
        else
        {
            Dial(peer, reason);
        }
    }

    /// <summary>
    /// The connection carried data out and nothing authenticated back for <see cref="TcpFallbackOptions.DeadConnectionAfter"/>:
    /// it is closed without the switch's grace period (nothing more will arrive on it) and the peer goes back to UDP,
    /// where the fallback starts again and dials a new connection if UDP is still blocked.
    /// </summary>
    private void LeaveDeadConnection(Peer peer, long now)
    {
        var path = peer.Path;
        var reason = string.Create(CultureInfo.InvariantCulture,
            $"no authenticated message over TCP for {_time.GetElapsedTime(path.TcpSilentSince, now).TotalMilliseconds:0} ms after sending");
        if (path.TcpAddress.HasValue && path.TcpAddress != path.DialedAddress)
        {
            // The connection the peer dialed: MoveToUdp closes only the one this end dialed.
            _connector?.Close(path.TcpAddress, TimeSpan.Zero);
            path.TcpAddress = default;
        }

        MoveToUdp(peer, reason, closeAfter: TimeSpan.Zero);
    }

    /// <summary>
    /// Whether a handshake initiation went out since the move to TCP: a packet sent between the move and the next tick
    /// (the connection opens on another thread) starts one at once. A second one then would forget the first one's
    /// index, so its response is refused, and the peer refuses the second as a flood (under 20 ms after the first
    /// it accepted): no session until the retransmission REKEY_TIMEOUT (5 s) later. Seen in about 1 of 13 runs of
    /// the TCP fallback device test.
    /// </summary>
    private static bool InitiatedOverTcp(Peer peer) =>
        peer.Timers.HasSentInitiation && peer.Timers.LastInitiationSent >= peer.Path.MovedToTcp;

    /// <summary>
    /// Whether a handshake initiation sent over TCP since the move (not a UDP probe) is still unanswered, and sent less
    /// than REKEY_TIMEOUT ago. A UDP probe is a new initiation, which forgets the pending one's index: its response,
    /// arriving later over TCP, would be refused, and as each probe also puts the retransmission off by REKEY_TIMEOUT,
    /// a peer that moved to TCP with no session would get none while UDP stays blocked. The UDP probes come 250 to
    /// 500 ms apart, so a TCP handshake slower than that (a loaded machine, a long path) never completed; the probe
    /// waits for it instead, at most REKEY_TIMEOUT.
    /// </summary>
    private bool AwaitsHandshakeOverTcp(Peer peer, long now)
    {
        var timers = peer.Timers;
        return peer.Handshake.Stage == HandshakeStage.InitiationCreated
            && timers.HasSentInitiation
            && timers.LastInitiationSent >= peer.Path.MovedToTcp
            && timers.LastInitiationSent != peer.Path.UdpProbeInitiation
            && _time.GetElapsedTime(timers.LastInitiationSent, now) < WireGuardProtocol.RekeyTimeout;
    }

    /// <summary>A handshake initiation to <paramref name="destination"/> now, ahead of REKEY_TIMEOUT: the one message every peer answers at once.</summary>
    private void SendProbe(Peer peer, DatagramAddress destination, ITunnelOutput output)
    {
        var endpoint = peer.Endpoint;
        peer.Endpoint = destination;
        peer.Timers.HasSentInitiation = false;
        SendInitiation(peer, isRetry: false, output);
        peer.Endpoint = endpoint;
    }

    /// <summary>
    /// Asks for a connection to the peer's TCP listener, on the port number of its UDP endpoint. Called on the tick
    /// thread, so the socket is created there (in that thread's network namespace, like the UDP socket).
    /// </summary>
    private void Dial(Peer peer, string reason)
    {
        if (_connector is null)
        {
            return;
        }

        var path = peer.Path;
        path.DialPending = true;
        path.DialReason = reason;
        _connector.Dial(peer.PublicKeyText, path.UdpEndpoint.ToIPEndPoint());
    }

    private void MoveToTcp(Peer peer, DatagramAddress address, bool dialed, string reason)
    {
        var path = peer.Path;
        path.Current = TunnelPath.Tcp;
        path.TcpAddress = address;
        if (dialed)
        {
            path.DialedAddress = address;
        }
        path.SilentSince = 0;
        path.TcpSilentSince = 0;
        path.ProbeSent = 0;
        path.UdpProbes = 0;
        path.ProbeSchedule = NewSchedule();
        path.NextUdpProbe = Deadline(path.ProbeSchedule.Next());
        // No session yet (UDP was blocked from the start) or packets waiting for one: handshake over TCP at the next
        // tick rather than at the next retransmission, up to 5 s later.
        path.HandshakeOverTcp = peer.Current is null || peer.Staged.Count > 0;
        path.MovedToTcp = _time.GetTimestamp();
        MoveEndpoint(peer, address);
        Counters.PathSwitchesToTcp++;
        NotePathChange(peer, TunnelPath.Udp, TunnelPath.Tcp, reason);
    }

    /// <summary>
    /// Moves the peer back to UDP and closes the connection this end dialed after <paramref name="closeAfter"/>
    /// (default <see cref="TcpFallbackOptions.SwitchGracePeriod"/>, so what is in flight on it still arrives).
    /// </summary>
    private void MoveToUdp(Peer peer, string reason, TimeSpan? closeAfter = null)
    {
        var path = peer.Path;
        path.Current = TunnelPath.Udp;
        path.SilentSince = 0;
        path.TcpSilentSince = 0;
        path.ProbeSent = 0;
        path.DialPending = false;
        path.NextDialAllowed = 0;
        MoveEndpoint(peer, path.Mode == TcpFallbackMode.Only ? default : path.UdpEndpoint);
        if (path.DialedAddress.HasValue)
        {
            _connector?.Close(path.DialedAddress, closeAfter ?? _fallback.SwitchGracePeriod);
            if (path.TcpAddress == path.DialedAddress)
            {
                path.TcpAddress = default;
            }

            path.DialedAddress = default;
        }

        Counters.PathSwitchesToUdp++;
        NotePathChange(peer, TunnelPath.Tcp, TunnelPath.Udp, reason);
    }

    private void NotePathChange(Peer peer, TunnelPath from, TunnelPath to, string reason)
    {
        peer.Path.Changed = _time.GetUtcNow();
        peer.Path.Reason = reason;
        TunnelLog.PathSwitched(_logger, peer.PublicKeyText.ToString(), from.ToString().ToUpperInvariant(), to.ToString().ToUpperInvariant(), reason);
    }

    private UdpProbeSchedule NewSchedule() =>
        new(_fallback.UdpReprobeBackoff, _jitter);

    /// <summary>"198.18.0.2:51820", or "198.18.0.2:51820 over TCP" while the fallback carries the peer: for log lines.</summary>
    private static string DescribeEndpoint(Peer peer) =>
        TcpPathAddress.IsTcp(peer.Endpoint) ? $"{peer.Path.UdpEndpoint} over TCP" : peer.Endpoint.ToString();

    /// <summary>Where a peer's messages go, as <c>salvo tunnel show</c> prints it: its UDP address on either path.</summary>
    private static System.Net.IPEndPoint? ShownEndpoint(Peer peer) => ShownAddress(peer) is { HasValue: true } address ? address.ToIPEndPoint() : null;

    private static DatagramAddress ShownAddress(Peer peer) =>
        TcpPathAddress.IsTcp(peer.Endpoint) || peer.PathMode == TcpFallbackMode.Only ? peer.Path.UdpEndpoint : peer.Endpoint;
}
