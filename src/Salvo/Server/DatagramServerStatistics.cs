namespace Salvo.Server;

/// <summary>A snapshot of a <see cref="DatagramServer"/>'s counters (or one worker's) since it started.</summary>
/// <remarks>
/// The counters add up: <see cref="DatagramsReceived"/> = <see cref="DatagramsHandled"/> +
/// <see cref="DatagramsDropped"/> + <see cref="QueueDepth"/>; after a stop <see cref="QueueDepth"/> is 0
/// because what was left is counted under <see cref="DatagramDropReason.Stopped"/>.
/// </remarks>
/// <param name="DatagramsReceived">Datagrams taken from the sockets.</param>
/// <param name="BytesReceived">Their payload bytes (after any truncation).</param>
/// <param name="ReceiveBatches">Receive calls that returned data (received / batches = batching achieved).</param>
/// <param name="DatagramsHandled">Datagrams handed to the handler (counted when the call starts, so a batch whose handler threw counts too).</param>
/// <param name="DatagramsSent">Replies the kernel accepted.</param>
/// <param name="BytesSent">Their payload bytes.</param>
/// <param name="SendErrors">Replies the kernel refused (each skipped).</param>
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

    /// <summary>
    /// Datagrams the server dropped after receiving them, by <see cref="DatagramDropReason"/> (kernel drops not included). A
    /// property rather than a constructor parameter, so a new reason changes no signature.
    /// </summary>
    public DatagramDropCounts DroppedByReason { get; init; }

    /// <summary>Datagrams the server dropped after receiving them, all reasons (kernel drops not included).</summary>
    public long DatagramsDropped => DroppedByReason.Total;

    /// <summary>The drops under <see cref="DatagramDropReason.QueueFull"/>; kept for code written before <see cref="DroppedByReason"/>.</summary>
    public long DroppedQueueFull => DroppedByReason[DatagramDropReason.QueueFull];

    /// <summary>The drops under <see cref="DatagramDropReason.Truncated"/>; kept for code written before <see cref="DroppedByReason"/>.</summary>
    public long DroppedTruncated => DroppedByReason[DatagramDropReason.Truncated];

    /// <summary>The drops under <see cref="DatagramDropReason.Stopped"/>; kept for code written before <see cref="DroppedByReason"/>.</summary>
    public long DroppedAtStop => DroppedByReason[DatagramDropReason.Stopped];
}
