namespace Salvo.Streams;

/// <summary>
/// A snapshot of a <see cref="MessageTransportServer"/>'s counters since it started. UDP promises no delivery: a message a
/// client sent that shows up in none of these counters was lost on the way, or in the client's own socket (see
/// <see cref="MessageTransportStatistics"/>); one that the kernel dropped here for a full buffer is in <see cref="UdpKernelDrops"/>.
/// </summary>
public readonly record struct MessageTransportServerStatistics
{
    /// <summary>Messages received over UDP and handed to the handler.</summary>
    public long UdpMessagesReceived { get; init; }

    /// <summary>Replies the handler sent over UDP (taken into the reply batch; <see cref="UdpSendErrors"/> counts those the kernel then refused).</summary>
    public long UdpMessagesSent { get; init; }

    /// <summary>UDP handshakes (HELLOs) answered.</summary>
    public long UdpHandshakesAnswered { get; init; }

    /// <summary>Datagrams received that carried no message: cut to the buffer, empty, or of an unknown type (each logged).</summary>
    public long UdpDatagramsDropped { get; init; }

    /// <summary>
    /// Datagrams the kernel dropped on the UDP socket because its receive buffer
    /// (<see cref="MessageTransportServerOptions.UdpReceiveBufferSize"/>) was full: messages that reached this host and were
    /// lost before the server could read them. Read now; null where the platform does not say (outside Linux) or UDP is off.
    /// </summary>
    public long? UdpKernelDrops { get; init; }

    /// <summary>UDP replies (and handshake answers) the kernel refused to send.</summary>
    public long UdpSendErrors { get; init; }

    /// <summary>Messages received over TCP and handed to the handler.</summary>
    public long TcpMessagesReceived { get; init; }

    /// <summary>TCP connections open now.</summary>
    public int TcpConnections { get; init; }
}
