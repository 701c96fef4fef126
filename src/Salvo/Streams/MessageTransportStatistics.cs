namespace Salvo.Streams;

/// <summary>
/// A snapshot of a <see cref="MessageTransport"/>'s counters since it was created, per transport. Over UDP a message sent
/// may be lost without a word from either end: compare <see cref="UdpMessagesSent"/> with what the server counted
/// (<see cref="MessageTransportServerStatistics.UdpMessagesReceived"/>), and watch <see cref="UdpKernelDrops"/> here and
/// <see cref="MessageTransportServerStatistics.UdpKernelDrops"/> there: together they show where messages went missing.
/// </summary>
public readonly record struct MessageTransportStatistics
{
    /// <summary>Messages handed to the UDP socket (<see cref="MessageTransport.SendAsync"/> returned true over UDP). Not a delivery receipt.</summary>
    public long UdpMessagesSent { get; init; }

    /// <summary>Messages received over UDP and handed to the handler.</summary>
    public long UdpMessagesReceived { get; init; }

    /// <summary>Messages queued on the TCP connection (<see cref="MessageTransport.SendAsync"/> returned true over TCP).</summary>
    public long TcpMessagesSent { get; init; }

    /// <summary>Messages received over TCP and handed to the handler.</summary>
    public long TcpMessagesReceived { get; init; }

    /// <summary>
    /// Sends that returned false: the message was not taken (the UDP socket refused it, or the TCP connection was closed,
    /// reconnecting, or its queue full past the send timeout).
    /// </summary>
    public long MessagesRefused { get; init; }

    /// <summary>Datagrams that reached the UDP socket but carried no message to deliver: cut to the buffer, empty, or of an unknown type (each logged).</summary>
    public long UdpDatagramsDropped { get; init; }

    /// <summary>
    /// Datagrams addressed to this transport's UDP sockets that the kernel dropped because the receive buffer
    /// (<see cref="MessageTransportOptions.UdpReceiveBufferSize"/>) was full: replies lost before the transport could see
    /// them. Read now; null where the platform does not say (outside Linux).
    /// </summary>
    public long? UdpKernelDrops { get; init; }

    /// <summary>Times a closed TCP connection was opened again (<see cref="MessageTransport.TcpConnectionReopened"/>).</summary>
    public long TcpReconnects { get; init; }

    /// <summary>Times traffic moved from one transport to the other after connect (<see cref="MessageTransport.TransportSwitches"/>).</summary>
    public long TransportSwitches { get; init; }
}
