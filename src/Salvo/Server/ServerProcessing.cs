namespace Salvo.Server;

/// <summary>Where a <see cref="DatagramServer"/> worker runs its handler.</summary>
public enum ServerProcessing
{
    /// <summary>
    /// On the receive loop, straight on the received batch: no copy and no hand-off, but a slow handler
    /// holds up receiving (the kernel drops what overflows the socket's receive buffer). The default.
    /// </summary>
    Inline = 0,

    /// <summary>
    /// Behind a bounded per-worker queue: the receive loop copies each datagram into the queue and goes on
    /// receiving while a processing loop runs the handler; when the queue is full the
    /// <see cref="DatagramServerOptions.OverflowPolicy"/> decides, and every drop is counted.
    /// </summary>
    Queued = 1,
}
