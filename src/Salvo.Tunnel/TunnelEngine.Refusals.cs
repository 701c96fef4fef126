using Microsoft.Extensions.Logging;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    private readonly long[] _lastLogged = new long[Enum.GetValues<TunnelDropReason>().Length];
    private readonly long[] _notLogged = new long[Enum.GetValues<TunnelDropReason>().Length];
    private long _loadWindowStart = long.MinValue;
    private int _handshakesInWindow;
    private long _underLoadUntil = long.MinValue;

    /// <summary>
    /// Handshake messages per second (those passing MAC1) answered without a cookie. Past it the engine is under
    /// load for the next second: handshakes must carry MAC2, and those without get a cookie reply, which costs no
    /// Diffie-Hellman. Real peers answer the cookie and get through; a flood from forged addresses cannot.
    /// Defaults to 100 (wireguard-go turns cookies on at 128 queued handshakes, device/device.go).
    /// </summary>
    public int HandshakeBudgetPerSecond { get; set; } = 100;

    /// <summary>Whether handshakes need a cookie now: forced through <see cref="UnderLoad"/>, or the budget was exceeded in the last second.</summary>
    public bool IsUnderLoad
    {
        get
        {
            lock (_gate)
            {
                return UnderLoad || _time.GetTimestamp() < _underLoadUntil;
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

        if (++_handshakesInWindow > HandshakeBudgetPerSecond)
        {
            if (now >= _underLoadUntil)
            {
                TunnelLog.UnderLoad(_logger, HandshakeBudgetPerSecond);
            }

            _underLoadUntil = now + _time.TimestampFrequency;
        }

        return UnderLoad || now < _underLoadUntil;
    }

    /// <summary>Counts a refused datagram and logs why: the first of each reason, then at most one a second with the count skipped.</summary>
    private void Refuse(TunnelDropReason reason, DatagramAddress source)
    {
        Counters.Drop(reason);
        if (ShouldLog(reason, LogLevel.Warning, out var notLogged))
        {
            TunnelLog.RefusedDatagram(_logger, Paths.TcpPathAddress.Describe(source), Describe(reason), notLogged);
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

    private void LogHandshake(Protocol.Peer peer, string role)
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
        _ => reason.ToString(),
    };
}
