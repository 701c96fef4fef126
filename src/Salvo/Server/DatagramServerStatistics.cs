namespace Salvo.Server;

/// <summary>A snapshot of a <see cref="DatagramServer"/>'s counters (or one worker's) since it started.</summary>
/// <remarks>
/// The counters add up: <see cref="DatagramsReceived"/> = <see cref="DatagramsHandled"/> +
/// <see cref="DatagramsDropped"/> + <see cref="QueueDepth"/>; after a stop <see cref="QueueDepth"/> is 0
/// because what was left is counted in <see cref="DroppedAtStop"/>.
/// </remarks>
/// <param name="DatagramsReceived">Datagrams taken from the sockets.</param>
/// <param name="BytesReceived">Their payload bytes (after any truncation).</param>
/// <param name="ReceiveBatches">Receive calls that returned data (received / batches = batching achieved).</param>
/// <param name="DatagramsHandled">Datagrams handed to the handler (counted when the call starts, so a batch whose handler threw counts too).</param>
/// <param name="DatagramsSent">Replies the kernel accepted.</param>
/// <param name="BytesSent">Their payload bytes.</param>
/// <param name="SendErrors">Replies the kernel refused (each skipped).</param>
/// <param name="DroppedQueueFull">Datagrams dropped because a worker's queue was full (DropNewest or DropOldest).</param>
/// <param name="DroppedTruncated">Datagrams dropped because they were longer than MaxDatagramSize.</param>
/// <param name="DroppedAtStop">Datagrams received but still queued when a stop gave up draining.</param>
/// <param name="HandlerErrors">Handler calls that threw.</param>
/// <param name="ReceiveErrors">Unexpected receive failures survived by a worker.</param>
/// <param name="QueueDepth">Datagrams queued now, waiting for the handler.</param>
/// <param name="KernelDrops">
/// Datagrams the kernel dropped on these sockets instead of queuing them, nearly always because the receive buffer was full
/// (<see cref="DatagramServerOptions.ReceiveBufferSize"/>); never part of <see cref="DatagramsReceived"/>. Read now from each
/// socket's counter (Linux: sk_drops through SO_MEMINFO); null where the platform does not say (outside Linux).
/// </param>
public readonly record struct DatagramServerStatistics(
    long DatagramsReceived,
    long BytesReceived,
    long ReceiveBatches,
    long DatagramsHandled,
    long DatagramsSent,
    long BytesSent,
    long SendErrors,
    long DroppedQueueFull,
    long DroppedTruncated,
    long DroppedAtStop,
    long HandlerErrors,
    long ReceiveErrors,
    long QueueDepth,
    long? KernelDrops)
{
    /// <summary>
    /// Datagrams received during a <see cref="DatagramServerOptions.BusyPoll"/> spin, without a wake-up (part of
    /// <see cref="DatagramsReceived"/>; 0 when busy polling is off). A property rather than a constructor parameter,
    /// so code that builds or deconstructs the record by position keeps compiling.
    /// </summary>
    public long BusyPollDatagrams { get; init; }

    /// <summary>
    /// Frames for the server's port that the sockets' backend took off the wire and could not deliver (see
    /// <see cref="DatagramSocketStatistics.MalformedFrames"/>); never part of <see cref="DatagramsReceived"/>. 0 on backends
    /// that parse no frames (every backend but <see cref="DatagramBackend.AfXdp"/>). A property rather than a constructor
    /// parameter, so code that builds or deconstructs the record by position keeps compiling.
    /// </summary>
    public long MalformedFrames { get; init; }

    /// <summary>
    /// <see cref="MalformedFrames"/> by reason (see <see cref="DatagramSocketStatistics.MalformedFramesByReason"/>). A
    /// property rather than a constructor parameter, so code that builds or deconstructs the record by position keeps
    /// compiling.
    /// </summary>
    public FrameDropCounts MalformedFramesByReason { get; init; }

    /// <summary>Datagrams the server dropped after receiving them, all reasons (kernel drops not included).</summary>
    public long DatagramsDropped => DroppedQueueFull + DroppedTruncated + DroppedAtStop;
}
