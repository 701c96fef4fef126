namespace Salvo.Server;

/// <summary>
/// One batch of work for a handler: the datagrams a worker received and the worker's reply batch. Replies
/// added to <see cref="Replies"/> go out in one batched send after the handler returns.
/// </summary>
/// <remarks>
/// Everything here belongs to the worker and is reused for its next batch: read the payloads and add the
/// replies before the handler returns (an asynchronous handler: before its task completes); copy anything
/// kept for longer.
/// </remarks>
public readonly struct DatagramContext
{
    internal DatagramContext(ReceiveBatch datagrams, SendBatch replies, int workerIndex, CancellationToken stopping)
    {
        Datagrams = datagrams;
        Replies = replies;
        WorkerIndex = workerIndex;
        Stopping = stopping;
    }

    /// <summary>The received datagrams (enumerate with <c>foreach</c>; nothing allocates).</summary>
    public ReceiveBatch Datagrams { get; }

    /// <summary>
    /// The worker's reply batch, empty when the handler is called. Its capacity is
    /// <see cref="DatagramServerOptions.BatchSize"/>, so one reply per received datagram always fits.
    /// </summary>
    public SendBatch Replies { get; }

    /// <summary>
    /// The worker running the handler, 0 to <see cref="DatagramServerOptions.Workers"/> - 1; on Linux one
    /// flow always lands on the same worker, so per-worker state needs no lock.
    /// </summary>
    public int WorkerIndex { get; }

    /// <summary>Cancelled when the server gives up draining during a stop; a long handler should end then.</summary>
    public CancellationToken Stopping { get; }
}
