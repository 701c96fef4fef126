namespace Salvo.Streams;

/// <summary>Says which transport a <see cref="MessageTransport"/> chose, and why.</summary>
/// <param name="transport">The transport in use.</param>
/// <param name="reason">Why, in words (handshake answered, no answer within the timeout, port unreachable, mode).</param>
public sealed class TransportSelectedEventArgs(TransportKind transport, string reason) : EventArgs
{
    /// <summary>The transport in use.</summary>
    public TransportKind Transport { get; } = transport;

    /// <summary>Why it was chosen.</summary>
    public string Reason { get; } = reason;
}
