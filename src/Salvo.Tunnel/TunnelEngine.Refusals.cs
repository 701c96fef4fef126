using Microsoft.Extensions.Logging;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    private readonly long[] _lastLogged = new long[Enum.GetValues<TunnelDropReason>().Length];
    private readonly long[] _notLogged = new long[Enum.GetValues<TunnelDropReason>().Length];
    private long _loadWindowStart = long.MinValue;
    private int _handshakesInWindow;
    private long _underLoadUntil = long.MinValue;
    private HandshakeRateLimiter? _sourceLimiter;
    private int _cookieRepliesPerSecond = 500;
    private long _cookieTokens = long.MinValue;
    private long _cookieTokensTime;

    /// <summary>
    /// Handshake messages per second (those passing MAC1) answered without a cookie. Past it the engine is under
    /// load for the next second: handshakes must carry MAC2, and those without get a cookie reply, which costs no
    /// Diffie-Hellman. Real peers answer the cookie and get through; a flood from forged addresses cannot.
    /// Defaults to 100 (wireguard-go turns cookies on at 128 queued handshakes, device/device.go).
    /// </summary>
    public int HandshakeBudgetPerSecond { get; set; } = 100;

    /// <summary>
    /// Cookie replies a second, all sources together, to addresses that are not a peer's endpoint. Each reply to a
    /// forged on-link address waits in the kernel for ARP or NDP (3 s by default: mcast_solicit 3 x retrans_time 1 s)
    /// and counts against the socket's send buffer meanwhile; past this rate a handshake without MAC2 is dropped
    /// unanswered (<see cref="TunnelDropReason.CookieReplyLimited"/>). Defaults to 500 (at 768 bytes of kernel memory a
    /// reply, about 1.2 MB held at most, a seventh of the 8 MiB buffer the tunnel asks for).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is negative.</exception>
    public int CookieRepliesPerSecond
    {
        get => _cookieRepliesPerSecond;
        set => _cookieRepliesPerSecond = value >= 0 ? value : throw new ArgumentOutOfRangeException(nameof(CookieRepliesPerSecond), value, "CookieRepliesPerSecond must be 0 or more.");
    }

    /// <summary>Whether handshakes need a cookie now: forced through <see cref="UnderLoad"/>, the budget was exceeded in the last second, or the device's handshake queue is an eighth full.</summary>
    public bool IsUnderLoad
    {
        get
        {
            lock (_gate)
            {
                return UnderLoad || HandshakeQueueLoaded || _time.GetTimestamp() < _underLoadUntil;
            }
        }
    }

    /// <summary>Counts a handshake message against the per-second budget; true when cookies are required.</summary>
    private bool CountHandshakeAndCheckLoad()
    {
        var now = _time.GetTimestamp();
        if (now - _loadWindowStart >= _time.TimestampFrequency || _loadWindowStart == long.MinValue)
        {
            _loadWindowStart = now;
            _handshakesInWindow = 0;
        }

        // A queue an eighth full means the handshake thread is behind: wireguard-go's test (device/device.go), and
        // like its UnderLoadAfterTime the load holds for a second after.
        if (++_handshakesInWindow > HandshakeBudgetPerSecond || HandshakeQueueLoaded)
        {
            if (now >= _underLoadUntil)
            {
                TunnelLog.UnderLoad(_logger, HandshakeBudgetPerSecond);
            }

            _underLoadUntil = now + _time.TimestampFrequency;
        }

        return UnderLoad || now < _underLoadUntil;
    }

    /// <summary>
    /// Whether the engine does Diffie-Hellman for a handshake message now. MAC1 always; under load a valid MAC2 and
    /// room in the source's own bucket; a message without MAC2 is answered with a cookie reply, within the source's
    /// bucket and this second's cookie budget. A response to our own pending initiation (its receiver index is ours,
    /// which no one off the path can guess) passes once per initiation without MAC2: the cookie would otherwise make
    /// our handshake wait REKEY_TIMEOUT for a retransmission the peer cannot send until we send one.
    /// </summary>
    private bool PassesMacs(ReadOnlySpan<byte> message, int mac1Offset, uint senderIndex, DatagramAddress source, ITunnelOutput output, HandshakeState? pending = null)
    {
        if (!Checker.IsMac1Valid(message, mac1Offset))
        {
            Refuse(TunnelDropReason.InvalidMac1, source);
            return false;
        }

        if (!CountHandshakeAndCheckLoad())
        {
            return true;
        }

        if (!(_sourceLimiter ??= new HandshakeRateLimiter(_time)).Allow(source))
        {
            Refuse(TunnelDropReason.HandshakeRateLimited, source);
            return false;
        }

        if (Checker.IsMac2Valid(message, mac1Offset, source, _time))
        {
            return true;
        }

        if (pending is { Stage: HandshakeStage.InitiationCreated, ResponseExemptedFromCookie: false })
        {
            pending.ResponseExemptedFromCookie = true;
            return true;
        }

        var known = IsPeerAddress(source);
        if (!known && !TakeCookieToken())
        {
            Refuse(TunnelDropReason.CookieReplyLimited, source);
            return false;
        }

        Checker.WriteReply(message, mac1Offset, senderIndex, source, output.AddControlDatagram(MessageLayout.CookieReplySize, source, expendable: !known), _time);
        Counters.CookieRepliesSent++;
        Refuse(TunnelDropReason.CookieRequired, source);
        return false;
    }

    /// <summary>A token of the global cookie budget: <see cref="CookieRepliesPerSecond"/>, a second's worth at once at most.</summary>
    private bool TakeCookieToken()
    {
        var now = _time.GetTimestamp();
        var perSecond = _cookieRepliesPerSecond;
        var cost = _time.TimestampFrequency;
        var full = cost * perSecond;
        // A bucket refills in a second at most, so a longer gap counts as one second (and cannot overflow the product).
        _cookieTokens = _cookieTokens == long.MinValue ? full : Math.Min(full, _cookieTokens + (Math.Min(now - _cookieTokensTime, cost) * perSecond));
        _cookieTokensTime = now;
        if (_cookieTokens < cost)
        {
            return false;
        }

        _cookieTokens -= cost;
        return true;
    }

    /// <summary>
    /// Whether <paramref name="source"/>'s address (any port) is a peer's endpoint: a reply there reaches a host that
    /// answers ARP, so it leaves at once and holds no buffer. One lookup, whatever the number of peers (the peers keep
    /// the set, see <see cref="EndpointAddresses"/>).
    /// </summary>
    private bool IsPeerAddress(DatagramAddress source) => _sessions.Addresses.Contains(source);

    /// <summary>Counts a refused datagram and logs why: the first of each reason, then at most one a second with the count skipped.</summary>
    private void Refuse(TunnelDropReason reason, DatagramAddress source)
    {
        Counters.Drop(reason);
        if (ShouldLog(reason, LogLevel.Warning, out var notLogged))
        {
            TunnelLog.RefusedDatagram(_logger, Paths.TcpPathAddress.Describe(source), Describe(reason), notLogged);
        }
    }

    /// <summary>Counts a TCP fallback connection from <paramref name="source"/> closed for <paramref name="reason"/>, and logs it at most once a second per reason.</summary>
    internal void RefuseTcpConnection(TunnelDropReason reason, DatagramAddress source)
    {
        lock (_gate)
        {
            Counters.Drop(reason);
            if (ShouldLog(reason, LogLevel.Warning, out var notLogged))
            {
                TunnelLog.RefusedTcpConnection(_logger, source.ToString(), Describe(reason), notLogged);
            }
        }
    }

    private void RefusePacket(TunnelDropReason reason, long count = 1)
    {
        Counters.Drop(reason, count);

        // The kernel sends IPv6 router solicitations and multicast on every interface that comes up, and the tunnel
        // rarely routes them: unrouted packets are routine, so they are logged only at Debug level.
        var level = reason == TunnelDropReason.NoRoute ? LogLevel.Debug : LogLevel.Warning;
        if (ShouldLog(reason, level, out var notLogged))
        {
            TunnelLog.RefusedPacket(_logger, level, Describe(reason), notLogged);
        }
    }

    private bool ShouldLog(TunnelDropReason reason, LogLevel level, out long notLogged)
    {
        notLogged = 0;
        if (!_logger.IsEnabled(level))
        {
            return false;
        }

        var now = _time.GetTimestamp();
        ref var last = ref _lastLogged[(int)reason];
        if (last != 0 && now - last < _time.TimestampFrequency)
        {
            _notLogged[(int)reason]++;
            return false;
        }

        last = now;
        notLogged = _notLogged[(int)reason];
        _notLogged[(int)reason] = 0;
        return true;
    }

    private void LogHandshake(Peer peer, string role)
    {
        if (_logger.IsEnabled(LogLevel.Information))
        {
            TunnelLog.HandshakeCompleted(_logger, peer.PublicKeyText.ToString(), DescribeEndpoint(peer), role);
        }
    }

    /// <summary>The reason in words, for the log.</summary>
    internal static string Describe(TunnelDropReason reason) => reason switch
    {
        TunnelDropReason.Malformed => "not a WireGuard message (unknown type or wrong size)",
        TunnelDropReason.UnknownIndex => "names a receiver index with no handshake or session",
        TunnelDropReason.InvalidMac1 => "handshake MAC1 is wrong (sent for another public key)",
        TunnelDropReason.CookieRequired => "under load and no valid cookie (MAC2): answered with a cookie reply",
        TunnelDropReason.HandshakeNotAuthenticated => "initiation did not decrypt with our private key",
        TunnelDropReason.UnknownPeer => "initiation from a public key that is not a configured peer",
        TunnelDropReason.StaleTimestamp => "initiation timestamp is not newer than the last accepted (replay)",
        TunnelDropReason.InitiationFlood => "initiation less than 20 ms after the last accepted from that peer",
        TunnelDropReason.ResponseNotAuthenticated => "response or cookie reply did not authenticate",
        TunnelDropReason.DecryptionFailed => "transport message failed authentication (Poly1305 tag)",
        TunnelDropReason.Replayed => "transport counter already seen or older than the replay window",
        TunnelDropReason.Expired => "session key older than 180 s (REJECT_AFTER_TIME)",
        TunnelDropReason.BadInnerPacket => "decrypted payload is not a whole IP packet",
        TunnelDropReason.SourceNotAllowed => "decrypted packet's source address is outside the peer's AllowedIPs",
        TunnelDropReason.NoRoute => "no peer's AllowedIPs hold the destination, or the peer has no endpoint",
        TunnelDropReason.StagedDropped => "packet waited for a handshake that gave up, or the wait queue was full",
        TunnelDropReason.NoPrivateKey => "the device has no private key yet (set one with wg set or wg setconf)",
        TunnelDropReason.HandshakeRateLimited => "under load and this source is past 20 handshake messages a second (burst 5)",
        TunnelDropReason.CookieReplyLimited => "under load, no valid cookie (MAC2), and this second's cookie replies are spent: not answered",
        TunnelDropReason.ControlSendDropped => "handshake message or cookie reply not sent: the socket had no room for it without holding up data",
        TunnelDropReason.PacketTooLarge => "packet longer than one WireGuard datagram carries (65,475 bytes), or longer than the buffer it was read into while the MTU was being raised",
        TunnelDropReason.InternalError => "a data loop dropped the batch it held after an unexpected error, and went on",
        TunnelDropReason.TcpUnauthenticatedTimeout => "no authenticated message within 8 s of connecting",
        TunnelDropReason.TcpSourceLimit => "this source already holds 8 connections without an authenticated message",
        TunnelDropReason.TcpUnauthenticatedEvicted => "the oldest of 256 connections without an authenticated message, closed for a newer one",
        _ => reason.ToString(),
    };
}
