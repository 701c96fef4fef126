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

        if (HandshakeTimeout <= TimeSpan.Zero || HandshakeTimeout == Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(HandshakeTimeout), HandshakeTimeout, "HandshakeTimeout must be positive and finite.");
        }

        if (HandshakeAttempts is < 1 or > 100)
        {
            throw new ArgumentOutOfRangeException(nameof(HandshakeAttempts), HandshakeAttempts, "HandshakeAttempts must be 1 to 100.");
        }

        if (Tcp is null)
        {
            throw new ArgumentException("Tcp is required.", nameof(Tcp));
        }

        Tcp.Validate();
    }
}
