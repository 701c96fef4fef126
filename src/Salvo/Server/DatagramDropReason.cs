namespace Salvo.Server;

/// <summary>
/// Why a <see cref="DatagramServer"/> dropped a datagram it had received instead of handing it to the handler, each
/// counted in <see cref="DatagramServerStatistics.DroppedByReason"/> and on the meter's
/// <c>salvo.server.datagrams.dropped</c> under its name in snake case. What the kernel dropped before a worker saw it is
/// <see cref="DatagramServerStatistics.KernelDrops"/>, not a reason here.
/// </summary>
public enum DatagramDropReason
{
    /// <summary>A worker's queue was full (<see cref="QueueOverflowPolicy.DropNewest"/> or <see cref="QueueOverflowPolicy.DropOldest"/>).</summary>
    QueueFull = 1,

    /// <summary>Longer than <see cref="DatagramServerOptions.MaxDatagramSize"/> while <see cref="DatagramServerOptions.DeliverTruncated"/> is false.</summary>
    Truncated = 2,

    /// <summary>Received, but still queued when a stop gave up draining (or arrived after the queue closed).</summary>
    Stopped = 3,
}
