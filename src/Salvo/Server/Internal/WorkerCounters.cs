namespace Salvo.Server;

/// <summary>
/// One worker's counters, updated once per batch (not per datagram) and mirrored to the metrics. Each
/// worker has its own, so workers never write to a shared cache line.
/// </summary>
internal sealed class WorkerCounters(ServerMetrics metrics)
{
    private long _received;
    private long _receivedBytes;
    private long _receiveBatches;
    private long _handled;
    private long _sent;
    private long _sentBytes;
    private long _sendErrors;
    private long _droppedQueueFull;
    private long _droppedTruncated;
    private long _droppedAtStop;
    private long _handlerErrors;
    private long _receiveErrors;
    private long _busyPollDatagrams;

    public void OnReceived(int datagrams, long bytes)
    {
        Interlocked.Increment(ref _receiveBatches);
        Interlocked.Add(ref _received, datagrams);
        Interlocked.Add(ref _receivedBytes, bytes);
        metrics.OnReceived(datagrams, bytes);
    }

    /// <summary>Datagrams a busy-poll spin picked up, which would otherwise have waited for a wake-up.</summary>
    public void OnBusyPollReceived(int datagrams) => Interlocked.Add(ref _busyPollDatagrams, datagrams);

    public void OnHandled(int datagrams) => Interlocked.Add(ref _handled, datagrams);

    public void OnSent(int datagrams, long bytes, int failed)
    {
        Interlocked.Add(ref _sent, datagrams);
        Interlocked.Add(ref _sentBytes, bytes);
        if (failed > 0)
        {
            Interlocked.Add(ref _sendErrors, failed);
        }

        metrics.OnSent(datagrams, bytes);
    }

    public void OnDroppedQueueFull(int datagrams) => Drop(ref _droppedQueueFull, datagrams, DropReason.QueueFull);

    public void OnDroppedTruncated(int datagrams) => Drop(ref _droppedTruncated, datagrams, DropReason.Truncated);

    public void OnDroppedAtStop(int datagrams) => Drop(ref _droppedAtStop, datagrams, DropReason.Stopped);

    public void OnHandlerError()
    {
        Interlocked.Increment(ref _handlerErrors);
        metrics.OnHandlerError();
    }

    public void OnReceiveError() => Interlocked.Increment(ref _receiveErrors);

    public DatagramServerStatistics Snapshot(long queueDepth, long? kernelDrops) => new(
        Interlocked.Read(ref _received),
        Interlocked.Read(ref _receivedBytes),
        Interlocked.Read(ref _receiveBatches),
        Interlocked.Read(ref _handled),
        Interlocked.Read(ref _sent),
        Interlocked.Read(ref _sentBytes),
        Interlocked.Read(ref _sendErrors),
        Interlocked.Read(ref _droppedQueueFull),
        Interlocked.Read(ref _droppedTruncated),
        Interlocked.Read(ref _droppedAtStop),
        Interlocked.Read(ref _handlerErrors),
        Interlocked.Read(ref _receiveErrors),
        queueDepth,
        kernelDrops)
    {
        BusyPollDatagrams = Interlocked.Read(ref _busyPollDatagrams),
    };

    private void Drop(ref long counter, int datagrams, string reason)
    {
        if (datagrams > 0)
        {
            Interlocked.Add(ref counter, datagrams);
            metrics.OnDropped(datagrams, reason);
        }
    }
}
