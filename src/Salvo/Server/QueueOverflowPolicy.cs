namespace Salvo.Server;

/// <summary>What a worker's receive loop does with a datagram when its queue is full.</summary>
public enum QueueOverflowPolicy
{
    /// <summary>
    /// Stop receiving until the handler makes room. Nothing is dropped in the queue; the socket's receive
    /// buffer fills instead and the kernel drops what overflows it (counted in
    /// <see cref="DatagramServerStatistics.KernelDrops"/> where the OS reports it). The default.
    /// </summary>
    Wait = 0,

    /// <summary>Drop the arriving datagram and keep the queued ones: the oldest traffic is served.</summary>
    DropNewest = 1,

    /// <summary>Drop the oldest queued datagram to make room: the newest traffic is served.</summary>
    DropOldest = 2,
}
