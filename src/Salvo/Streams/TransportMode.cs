namespace Salvo.Streams;

/// <summary>Which transport a <see cref="MessageTransport"/> may use.</summary>
public enum TransportMode
{
    /// <summary>Try UDP with a handshake; use TCP when no answer comes within the handshake timeout.</summary>
    UdpFirst,

    /// <summary>UDP only, without a handshake: messages are sent as datagrams whether or not anyone answers.</summary>
    UdpOnly,

    /// <summary>Framed TCP only.</summary>
    TcpOnly,
}
