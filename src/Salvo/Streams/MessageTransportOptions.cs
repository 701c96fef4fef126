using Microsoft.Extensions.Logging;

namespace Salvo.Streams;

/// <summary>How a <see cref="MessageTransport"/> reaches its server. Checked on connect; a bad value names its option.</summary>
public sealed class MessageTransportOptions
{
    /// <summary>Which transports may be used. Defaults to <see cref="TransportMode.UdpFirst"/>.</summary>
    public TransportMode Mode { get; set; } = TransportMode.UdpFirst;

    /// <summary>How long the UDP handshake may take before <see cref="TransportMode.UdpFirst"/> falls back to TCP. Defaults to 1 second.</summary>
    public TimeSpan HandshakeTimeout { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// HELLO datagrams sent within <see cref="HandshakeTimeout"/>, evenly spaced, so that one lost datagram does not
    /// force TCP. An ICMP port-unreachable answer ends the handshake at the next attempt. Defaults to 4.
    /// </summary>
    public int HandshakeAttempts { get; set; } = 4;

    /// <summary>
    /// Whether a transport that <see cref="TransportMode.UdpFirst"/> put on TCP keeps trying UDP and moves back to it when
    /// a HELLO is answered. Off, the transport chosen at connect stays for its life. Defaults to true.
    /// </summary>
    public bool UdpReprobe { get; set; } = true;

    /// <summary>
    /// When a transport on TCP probes UDP: the first probe <see cref="RetryBackoff.FirstDelay"/> after the fallback, the
    /// delay doubling after each unanswered one up to <see cref="RetryBackoff.MaxDelay"/>, each moved by up to
    /// ± <see cref="RetryBackoff.Jitter"/> so that clients cut off together do not probe together. Defaults to 5 s, 60 s and
    /// 0.2 (5, 10, 20, 40, 60, 60 s ..., each ± 20 %).
    /// </summary>
    public RetryBackoff UdpReprobeBackoff { get; set; } = new(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60), 0.2);

    /// <summary>
    /// How often a <see cref="TransportMode.UdpFirst"/> transport on UDP sends a keepalive HELLO to learn whether UDP still
    /// gets through. Defaults to 1 second.
    /// </summary>
    public TimeSpan UdpKeepaliveInterval { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Keepalive HELLOs in a row left unanswered after which traffic moves to TCP; 0 turns keepalives off. The default
    /// finds a dead UDP path within 3 to 4 seconds. Defaults to 3.
    /// </summary>
    public int UdpKeepaliveMisses { get; set; } = 3;

    /// <summary>
    /// How long the old path stays open after a switch, so that messages queued on it (TCP) and the server's replies in
    /// flight on it still arrive. Defaults to 5 seconds.
    /// </summary>
    public TimeSpan SwitchGracePeriod { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// Whether a TCP connection in use that closes (the server restarted or went away, a reset, a send or idle timeout) is
    /// opened again, on the back-off of <see cref="TcpReconnectBackoff"/>, for as
    /// long as the transport lives. Either way <see cref="MessageTransport.TcpConnectionClosed"/> says at once that it closed
    /// and why, and <see cref="MessageTransport.TcpConnectionReopened"/> when it is back; in between
    /// <see cref="MessageTransport.SendAsync"/> returns false (the message was not taken: send it again later). Off, the
    /// transport stays closed and every send returns false. Defaults to true.
    /// </summary>
    public bool TcpReconnect { get; set; } = true;

    /// <summary>
    /// When a closed TCP connection is opened again: the first attempt <see cref="RetryBackoff.FirstDelay"/> after the
    /// close, the delay doubling after each failed one up to <see cref="RetryBackoff.MaxDelay"/>, each moved by up to
    /// ± <see cref="RetryBackoff.Jitter"/> so that the clients of a server that restarts do not all come back in the same
    /// instant. Defaults to 100 ms, 5 s and 0.2 (100 ms, 200 ms, ... 3.2 s, 5 s, 5 s ..., each ± 20 %).
    /// </summary>
    public RetryBackoff TcpReconnectBackoff { get; set; } = new(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(5), 0.2);

    /// <summary>
    /// SO_RCVBUF of the UDP socket, in bytes: what holds a burst of messages (or of the server's replies) while the
    /// receive loop is busy; what overflows it is counted in <see cref="MessageTransportStatistics.UdpKernelDrops"/>.
    /// Null keeps the system default. Defaults to <see cref="DatagramSocketOptions.DefaultSocketBufferSize"/> (4 MiB).
    /// </summary>
    public int? UdpReceiveBufferSize { get; set; } = DatagramSocketOptions.DefaultSocketBufferSize;

    /// <summary>
    /// SO_SNDBUF of the UDP socket, in bytes; null keeps the system default. Defaults to
    /// <see cref="DatagramSocketOptions.DefaultSocketBufferSize"/> (4 MiB).
    /// </summary>
    public int? UdpSendBufferSize { get; set; } = DatagramSocketOptions.DefaultSocketBufferSize;

    /// <summary>The clock of the probe schedule, the reconnect back-off and the grace period. Defaults to <see cref="TimeProvider.System"/>.</summary>
    public TimeProvider TimeProvider { get; set; } = TimeProvider.System;

    /// <summary>Settings of the TCP connection (framing, queue limits, timeouts). Defaults to <see cref="StreamClientOptions"/>' defaults.</summary>
    public StreamClientOptions Tcp { get; set; } = new();

    /// <summary>Where the transport logs which transport it chose and why. Defaults to null (no logging).</summary>
    public ILogger? Logger { get; set; }

    /// <summary>Throws an <see cref="ArgumentException"/> naming the first invalid option.</summary>
    public void Validate()
    {
        if (!Enum.IsDefined(Mode))
        {
            throw new ArgumentOutOfRangeException(nameof(Mode), Mode, "Unknown transport mode.");
        }

        CheckPositive(HandshakeTimeout, nameof(HandshakeTimeout));

        if (HandshakeAttempts is < 1 or > 100)
        {
            throw new ArgumentOutOfRangeException(nameof(HandshakeAttempts), HandshakeAttempts, "HandshakeAttempts must be 1 to 100.");
        }

        RetryBackoff.Check(UdpReprobeBackoff, nameof(UdpReprobeBackoff));
        RetryBackoff.Check(TcpReconnectBackoff, nameof(TcpReconnectBackoff));
        CheckPositive(UdpKeepaliveInterval, nameof(UdpKeepaliveInterval));
        if (UdpKeepaliveMisses is < 0 or > 1000)
        {
            throw new ArgumentOutOfRangeException(nameof(UdpKeepaliveMisses), UdpKeepaliveMisses, "UdpKeepaliveMisses must be 0 (off) to 1,000.");
        }

        DatagramSocketOptions.CheckBufferSize(UdpReceiveBufferSize, nameof(UdpReceiveBufferSize));
        DatagramSocketOptions.CheckBufferSize(UdpSendBufferSize, nameof(UdpSendBufferSize));

        if (SwitchGracePeriod < TimeSpan.Zero || SwitchGracePeriod == Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(SwitchGracePeriod), SwitchGracePeriod, "SwitchGracePeriod must be zero or more and finite.");
        }

        if (TimeProvider is null)
        {
            throw new ArgumentException("TimeProvider is required.", nameof(TimeProvider));
        }

        if (Tcp is null)
        {
            throw new ArgumentException("Tcp is required.", nameof(Tcp));
        }

        Tcp.Validate();
    }

    private static void CheckPositive(TimeSpan value, string name)
    {
        if (value <= TimeSpan.Zero || value == Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must be positive and finite.");
        }
    }
}
