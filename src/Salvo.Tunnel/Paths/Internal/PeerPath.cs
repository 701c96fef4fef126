using Salvo.Streams;

namespace Salvo.Tunnel.Paths;

/// <summary>
/// One peer's path state: which path its messages go over, what each path last did, and the probe and redial
/// schedules. Timestamps are on the engine's monotonic clock, 0 when unset. Read and written under the engine's lock.
/// </summary>
internal sealed class PeerPath(TcpFallbackMode mode, DatagramAddress udpEndpoint)
{
    public TcpFallbackMode Mode { get; } = mode;

    private TunnelPath _current;
    private long _silentSince;

    /// <summary>
    /// Called when the path leaves its resting state (UDP, nothing unanswered): the engine's tick visits the peer
    /// while <see cref="IsResting"/> is false.
    /// </summary>
    public Action? Woken { get; set; }

    public TunnelPath Current
    {
        get => _current;
        set
        {
            _current = value;
            Woken?.Invoke();
        }
    }

    /// <summary>The peer's UDP address: the configured endpoint, then the source of its last authenticated datagram.</summary>
    public DatagramAddress UdpEndpoint { get; set; } = udpEndpoint;

    /// <summary>
    /// Nothing for the tick to do until <see cref="Woken"/>: on UDP with nothing unanswered, and not dialing by
    /// configuration (TcpFallback = only dials from the tick).
    /// </summary>
    public bool IsResting => Mode == TcpFallbackMode.Off || (_current == TunnelPath.Udp && Mode != TcpFallbackMode.Only && _silentSince == 0);

    /// <summary>The TCP connection in use or last seen from the peer; none when there is none.</summary>
    public DatagramAddress TcpAddress { get; set; }

    /// <summary>
    /// The connection this end opened to the peer, whichever one <see cref="TcpAddress"/> names (when both ends dial
    /// at once, each answers on the one the other sends on). While it is open this end probes UDP, and it closes it.
    /// </summary>
    public DatagramAddress DialedAddress { get; set; }

    public long LastUdpReceive { get; set; }

    /// <summary>When data first went out over UDP after the last authenticated packet came back; 0 while answered.</summary>
    public long SilentSince
    {
        get => _silentSince;
        set
        {
            _silentSince = value;
            if (value != 0)
            {
                Woken?.Invoke();
            }
        }
    }

    /// <summary>When data first went out over TCP after the last authenticated message came back; 0 while answered.</summary>
    public long TcpSilentSince { get; set; }

    private long _probeSent;

    /// <summary>When the handshake checking this silence went out; 0 before it. Setting it starts a new check, not yet repeated.</summary>
    public long ProbeSent
    {
        get => _probeSent;
        set
        {
            _probeSent = value;
            ProbeRepeated = false;
        }
    }

    /// <summary>Whether the check's handshake went out a second time, half its timeout after the first.</summary>
    public bool ProbeRepeated { get; set; }

    /// <summary>When the last such handshake went out, answered or not.</summary>
    public long LastProbe { get; set; }

    public bool DialPending { get; set; }

    /// <summary>Why the pending dial was asked for, for the log line of the switch it leads to.</summary>
    public string? DialReason { get; set; }

    public long NextDialAllowed { get; set; }

    public UdpProbeSchedule? DialSchedule { get; set; }

    public UdpProbeSchedule? ProbeSchedule { get; set; }

    public long NextUdpProbe { get; set; }

    /// <summary>Just moved to TCP with no session, or with packets waiting for one: send a handshake over TCP at the next tick.</summary>
    public bool HandshakeOverTcp { get; set; }

    /// <summary>When the peer last moved to TCP: a handshake initiation sent since then already went over TCP.</summary>
    public long MovedToTcp { get; set; }

    public int UdpProbes { get; set; }

    /// <summary>When the last UDP probe's handshake initiation went out (its <c>LastInitiationSent</c>): the initiations since the move that did not go over TCP.</summary>
    public long UdpProbeInitiation { get; set; }

    public DateTimeOffset? Changed { get; set; }

    public string? Reason { get; set; }
}
