namespace Salvo.Streams;

/// <summary>Says that a <see cref="MessageTransport"/> opened its TCP connection again after it closed.</summary>
/// <param name="attempts">Connect attempts it took, the successful one included.</param>
/// <param name="downtime">How long the transport had no connection.</param>
public sealed class TcpConnectionReopenedEventArgs(int attempts, TimeSpan downtime) : EventArgs
{
    /// <summary>Connect attempts it took, the successful one included.</summary>
    public int Attempts { get; } = attempts;

    /// <summary>How long the transport had no connection: messages sent in that time were refused (<see cref="MessageTransport.SendAsync"/> returned false).</summary>
    public TimeSpan Downtime { get; } = downtime;
}
