namespace Salvo.Streams;

/// <summary>The transport carrying a peer's messages.</summary>
public enum TransportKind
{
    /// <summary>Not connected yet.</summary>
    None,

    /// <summary>One message per UDP datagram: no ordering or delivery guarantee, no head-of-line blocking.</summary>
    Udp,

    /// <summary>Framed messages over one TCP connection: ordered and reliable.</summary>
    Tcp,
}
