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
    private readonly ServerWorker _worker;

    internal DatagramContext(ReceiveBatch datagrams, SendBatch replies, ServerWorker worker, CancellationToken stopping)
    {
        Datagrams = datagrams;
        Replies = replies;
        _worker = worker;
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
    public int WorkerIndex => _worker.Index;

    /// <summary>Cancelled when the server gives up draining during a stop; a long handler should end then.</summary>
    public CancellationToken Stopping { get; }

    /// <summary>
    /// Adds a reply to <paramref name="request"/>: sent to its source and, when the server receives packet information
    /// (<see cref="DatagramSocketOptions.ReceivePacketInformation"/> in <see cref="DatagramServerOptions.Socket"/>),
    /// from the local address the request was sent to, so a server bound to a wildcard address on a host with
    /// several addresses answers from the one the client wrote to (a client whose socket is connected to that
    /// address drops replies from any other). Returns false when the reply batch is full
    /// (see <see cref="FlushRepliesAsync"/>).
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="payload"/> is longer than the reply batch's MaxDatagramSize.</exception>
    public bool TryReply(in ReceivedDatagram request, ReadOnlySpan<byte> payload) =>
        Replies.TryAdd(payload, request.Source, request.Destination);

    /// <summary>
    /// Sends the replies added so far now, in one batched send, and empties <see cref="Replies"/>: for a handler that
    /// answers with more datagrams than the batch holds. Counted like the replies sent after the handler returns. On a
    /// <see cref="ServerIoModel.DedicatedThread"/> worker the send blocks and the task is complete when this returns.
    /// </summary>
    public ValueTask FlushRepliesAsync() => _worker.SendRepliesAsync();
}
