namespace Salvo.Tunnel.Paths;

/// <summary>
/// The timers of the TCP fallback. With the defaults, UDP that stops getting through is left at most about 0.7 s after
/// the last packet came back (<see cref="ProbeAfter"/> + <see cref="ProbeTimeout"/>, each checked on the engine's
/// 100 ms tick), and a cleared UDP path is taken back within about 0.7 s (the UDP probe every
/// <see cref="UdpReprobeBackoff"/>, plus a tick and a handshake's round trip): both inside the 1 s that the first
/// retransmission of a TCP connection inside the tunnel may wait (RFC 6298's initial RTO), and a lossy path that still
/// answers is never left (a probe goes twice before the switch).
/// </summary>
public sealed class TcpFallbackOptions
{
    /// <summary>
    /// How long data may go out over UDP with no authenticated packet back before a handshake is sent to check that
    /// the peer still hears us (a keepalive needs no answer, a handshake does). Traffic that flows both ways answers
    /// within a round trip; data that flows one way is answered only by these handshakes, so they go at most once per
    /// REKEY_TIMEOUT (5 s). Defaults to 200 milliseconds.
    /// </summary>
    public TimeSpan ProbeAfter { get; init; } = TimeSpan.FromMilliseconds(200);

    /// <summary>
    /// How long that handshake may go unanswered before traffic moves to TCP; it goes a second time halfway, so that
    /// one lost datagram on a lossy path does not move traffic. Defaults to 300 milliseconds.
    /// </summary>
    public TimeSpan ProbeTimeout { get; init; } = TimeSpan.FromMilliseconds(300);

    /// <summary>
    /// While on TCP, when UDP is probed: the first probe <see cref="RetryBackoff.FirstDelay"/> after the fallback, the
    /// wait doubling after each unanswered one up to <see cref="RetryBackoff.MaxDelay"/>, each spread at random by
    /// ± <see cref="RetryBackoff.Jitter"/> so that tunnels cut off by one outage do not probe in step. Also spaces the
    /// retries of a TCP connection that could not be opened. A probe is one handshake initiation (about 150 bytes and
    /// two X25519 operations at each end when answered), so the short cap costs little per peer and takes traffic back
    /// to UDP within about 0.7 s of UDP clearing, however long the outage. Defaults to 250 ms, 500 ms and 0.2.
    /// </summary>
    public RetryBackoff UdpReprobeBackoff { get; init; } = new(TimeSpan.FromMilliseconds(250), TimeSpan.FromMilliseconds(500), 0.2);

    /// <summary>
    /// How long the TCP connection stays open after traffic has moved back to UDP, so that what is queued or in flight
    /// on it still arrives (the replay window takes messages from both paths). Defaults to 5 seconds.
    /// </summary>
    public TimeSpan SwitchGracePeriod { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// While on TCP, how long data may go out with no authenticated message back before the connection is taken for
    /// dead (a NAT or firewall that forgot it, a peer that vanished without a reset): it is closed at once and the peer
    /// goes back to UDP, where the fallback starts again, dialing a new connection if UDP is still blocked. A live
    /// connection is never this quiet: the other end answers data with a keepalive within 10 s (WireGuard's
    /// KEEPALIVE_TIMEOUT), and WireGuard itself starts a new handshake at 15 s (KEEPALIVE + REKEY_TIMEOUT). Without it,
    /// such a connection is left only when TCP gives up retransmitting (about 15 minutes with Linux's tcp_retries2).
    /// At least 11 seconds, so that the peer's keepalive always comes first on a live connection. Defaults to 15 seconds.
    /// </summary>
    public TimeSpan DeadConnectionAfter { get; init; } = TimeSpan.FromSeconds(15);

    // KEEPALIVE_TIMEOUT (10 s) plus a second for the keepalive to arrive.
    private static readonly TimeSpan MinimumDeadConnectionAfter = TimeSpan.FromSeconds(11);

    /// <summary>Throws an <see cref="ArgumentException"/> naming the first invalid option.</summary>
    public void Validate()
    {
        CheckPositive(ProbeAfter, nameof(ProbeAfter));
        CheckPositive(ProbeTimeout, nameof(ProbeTimeout));
        if (DeadConnectionAfter < MinimumDeadConnectionAfter || DeadConnectionAfter == Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(DeadConnectionAfter), DeadConnectionAfter,
                "DeadConnectionAfter must be at least 11 seconds and finite: a live peer may take 10 s (KEEPALIVE_TIMEOUT) to answer one-way data.");
        }

        if (UdpReprobeBackoff is null)
        {
            throw new ArgumentException("UdpReprobeBackoff is required.", nameof(UdpReprobeBackoff));
        }

        UdpReprobeBackoff.Validate(nameof(UdpReprobeBackoff));

        if (SwitchGracePeriod < TimeSpan.Zero || SwitchGracePeriod == Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(SwitchGracePeriod), SwitchGracePeriod, "SwitchGracePeriod must be zero or more and finite.");
        }
    }

    private static void CheckPositive(TimeSpan value, string name)
    {
        if (value <= TimeSpan.Zero || value == Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must be positive and finite.");
        }
    }
}
