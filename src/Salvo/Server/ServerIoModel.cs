namespace Salvo.Server;

/// <summary>How a <see cref="DatagramServer"/> worker waits for datagrams.</summary>
public enum ServerIoModel
{
    /// <summary>
    /// One dedicated thread per worker making blocking batched receives
    /// (<see cref="DatagramSocket.Receive(ReceiveBatch, TimeSpan)"/>): no thread-pool hops, the lowest latency.
    /// The default.
    /// </summary>
    DedicatedThread = 0,

    /// <summary>
    /// An asynchronous loop per worker (<see cref="DatagramSocket.ReceiveAsync(ReceiveBatch, CancellationToken)"/>)
    /// on the thread pool: no thread held while idle, which suits many servers in one process.
    /// </summary>
    Async = 1,
}
