namespace Salvo.Tunnel.Paths;

/// <summary>
/// The timers of the TCP fallback. With the defaults, UDP that stops getting through is left after about
/// <see cref="ProbeAfter"/> + <see cref="ProbeTimeout"/> = 2 s without an answer, inside the 3 s a TCP connection
/// inside the tunnel waits before its fourth retransmission (RTO 200 ms doubling: 0.2 + 0.4 + 0.8 + 1.6 s), so
/// the inner connection stalls about 3 s, not 6.
/// </summary>
public sealed class TcpFallbackOptions
{
    /// <summary>
    /// How long data may go out over UDP with no authenticated packet back before a handshake is sent to check that
    /// the peer still hears us (a keepalive needs no answer, a handshake does). Defaults to 1 second.
    /// </summary>
    public TimeSpan ProbeAfter { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>How long that handshake may go unanswered before traffic moves to TCP. Defaults to 1 second.</summary>
    public TimeSpan ProbeTimeout { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// While on TCP, when UDP is probed: the first probe <see cref="RetryBackoff.FirstDelay"/> after the fallback, the
    /// wait doubling after each unanswered one up to <see cref="RetryBackoff.MaxDelay"/>, each spread at random by
    /// ± <see cref="RetryBackoff.Jitter"/> so that tunnels cut off by one outage do not probe in step. Also spaces the
    /// retries of a TCP connection that could not be opened. Defaults to 5 s, 60 s and 0.2.
    /// </summary>
    public RetryBackoff UdpReprobeBackoff { get; init; } = new(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60), 0.2);

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
