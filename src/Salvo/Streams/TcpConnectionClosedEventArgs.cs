namespace Salvo.Streams;

/// <summary>Says that the TCP connection a <see cref="MessageTransport"/> was using closed, why, and whether it is being opened again.</summary>
/// <param name="reason">Why it closed (the server closed it, a reset, a timeout).</param>
/// <param name="reconnecting">Whether the transport opens it again (<see cref="MessageTransportOptions.TcpReconnect"/>).</param>
public sealed class TcpConnectionClosedEventArgs(StreamCloseReason reason, bool reconnecting) : EventArgs
{
    /// <summary>Why the connection closed.</summary>
    public StreamCloseReason Reason { get; } = reason;

    /// <summary>
    /// Whether the transport is opening it again; <see cref="MessageTransport.TcpConnectionReopened"/> follows when it is
    /// back. False when reconnecting is off: the transport then takes no more messages over TCP.
    /// </summary>
    public bool Reconnecting { get; } = reconnecting;
}
