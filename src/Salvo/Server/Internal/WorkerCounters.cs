namespace Salvo.Server;

/// <summary>
/// What only a worker knows, updated once per batch (not per datagram): datagrams handed to the handler, drops after
/// receiving, handler and receive errors. Datagrams and bytes received and sent are not here: the worker's socket counts
/// them once (<see cref="Salvo.Internal.SocketCounters"/>) and the statistics and the meter read them there. Each worker
/// has its own, so workers never write to a shared cache line.
/// </summary>
internal sealed class WorkerCounters
{
    private long _handled;
    private long _failedSendBatches;
    private readonly long[] _dropped = new long[DatagramDropCounts.Slots];
    private long _handlerErrors;
    private long _receiveErrors;
    private long _busyPollDatagrams;

    /// <summary>Datagrams a busy-poll spin picked up, which would otherwise have waited for a wake-up.</summary>
    public void OnBusyPollReceived(int datagrams) => Interlocked.Add(ref _busyPollDatagrams, datagrams);

    public void OnHandled(int datagrams) => Interlocked.Add(ref _handled, datagrams);

    /// <summary>Replies of a send that threw as a whole, which the socket counted nowhere (it counts refusals one by one).</summary>
    public void OnSendThrew(int datagrams) => Interlocked.Add(ref _failedSendBatches, datagrams);

    public void OnDropped(DatagramDropReason reason, int datagrams)
    {
        if (datagrams > 0)
        {
            Interlocked.Add(ref _dropped[(int)reason], datagrams);
        }
    }

    public void OnHandlerError() => Interlocked.Increment(ref _handlerErrors);

    public void OnReceiveError() => Interlocked.Increment(ref _receiveErrors);

    /// <summary>This worker's statistics, with the traffic figures read from <paramref name="socket"/>'s counters.</summary>
    public DatagramServerStatistics Snapshot(in DatagramSocketStatistics socket, long queueDepth, long? kernelDrops) => new(
        socket.DatagramsReceived,
        socket.BytesReceived,
        socket.ReceiveCalls,
        Interlocked.Read(ref _handled),
        socket.DatagramsSent,
        socket.BytesSent,
        socket.SendErrors + Interlocked.Read(ref _failedSendBatches),
        Interlocked.Read(ref _handlerErrors),
        Interlocked.Read(ref _receiveErrors),
        queueDepth,
        kernelDrops)
    {
        BusyPollDatagrams = Interlocked.Read(ref _busyPollDatagrams),
        DroppedByReason = ReadDrops(),
        MalformedFrames = socket.MalformedFrames,
        MalformedFramesByReason = socket.MalformedFramesByReason,
    };

    /// <summary>A socket's traffic as server statistics, every other figure 0.</summary>
    public static DatagramServerStatistics Traffic(in DatagramSocketStatistics socket) => new(
        socket.DatagramsReceived, socket.BytesReceived, socket.ReceiveCalls, 0, socket.DatagramsSent, socket.BytesSent, socket.SendErrors,
        0, 0, 0, null)
    {
        MalformedFrames = socket.MalformedFrames,
        MalformedFramesByReason = socket.MalformedFramesByReason,
    };

    /// <summary>The sum of two snapshots; <see cref="DatagramServerStatistics.KernelDrops"/> is <paramref name="total"/>'s.</summary>
    public static DatagramServerStatistics Add(in DatagramServerStatistics total, in DatagramServerStatistics s) => total with
    {
        DatagramsReceived = total.DatagramsReceived + s.DatagramsReceived,
        BytesReceived = total.BytesReceived + s.BytesReceived,
        ReceiveBatches = total.ReceiveBatches + s.ReceiveBatches,
        DatagramsHandled = total.DatagramsHandled + s.DatagramsHandled,
        DatagramsSent = total.DatagramsSent + s.DatagramsSent,
        BytesSent = total.BytesSent + s.BytesSent,
        SendErrors = total.SendErrors + s.SendErrors,
        DroppedByReason = total.DroppedByReason + s.DroppedByReason,
        HandlerErrors = total.HandlerErrors + s.HandlerErrors,
        ReceiveErrors = total.ReceiveErrors + s.ReceiveErrors,
        BusyPollDatagrams = total.BusyPollDatagrams + s.BusyPollDatagrams,
        MalformedFrames = total.MalformedFrames + s.MalformedFrames,
        MalformedFramesByReason = total.MalformedFramesByReason + s.MalformedFramesByReason,
        QueueDepth = total.QueueDepth + s.QueueDepth,
    };

    private DatagramDropCounts ReadDrops()
    {
        var counts = new long[_dropped.Length];
        for (var i = 0; i < counts.Length; i++)
        {
            counts[i] = Interlocked.Read(ref _dropped[i]);
        }

        return new DatagramDropCounts(counts);
    }
}
