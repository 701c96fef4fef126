using System.Buffers.Binary;
using System.Net;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Salvo's batched path: a <see cref="DatagramSocket"/> (backend from --backend; Auto: recvmmsg/sendmmsg on Linux) with a
/// 64-datagram <see cref="SendBatch"/> and <see cref="ReceiveBatch"/>, blocking calls on dedicated threads.
/// </summary>
internal sealed class SalvoMethod : ILoopbackMethod
{
    /// <summary>Datagrams per batch: the library's default, 64.</summary>
    internal const int BatchSize = 64;

    private const int MaxBatchBytes = 256 * 1024;

    public string Name => "salvo";

    public string Description => "DatagramSocket.Send/Receive with 64-datagram batches (sendmmsg/recvmmsg), GSO/GRO off, blocking, dedicated threads";

    public bool IsAsync => false;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point)
    {
        // Receive buffers stay within 256 KiB too: 64 x 64 KiB would spread each batch over 4 MiB that the
        // caches cannot hold, where one reused buffer stays hot.
        var bufferSize = Math.Min(ReceiveBatch.DefaultBufferSize, point.PayloadBytes + 1);
        return new BatchReceiver(Open(point, offloads: false), BatchFor(bufferSize), bufferSize);
    }

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver) =>
        new BatchSender(Open(point, offloads: false), point, receiver, BatchFor(point.PayloadBytes));

    /// <summary>Opens a socket for one end; <paramref name="offloads"/> turns UDP GSO and GRO on or off.</summary>
    internal static DatagramSocket Open(LoopbackPoint point, bool offloads) => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(point.ReceiverAddress, 0),
        ReceiveBufferSize = point.SocketBufferBytes,
        SendBufferSize = point.SocketBufferBytes,
        Backend = point.Backend,
        Gso = offloads,
        Gro = offloads,
    });

    /// <summary>
    /// Where the sender's batches go: with <see cref="LoopbackPoint.Connected"/> the socket is connected to
    /// <paramref name="target"/> and entries carry no destination; otherwise each entry names it.
    /// </summary>
    internal static DatagramAddress Aim(DatagramSocket socket, LoopbackPoint point, IPEndPoint target)
    {
        if (!point.Connected)
        {
            return DatagramAddress.FromIPEndPoint(target);
        }

        socket.Connect(target);
        return DatagramAddress.None;
    }

    /// <summary>
    /// Datagrams per GSO batch: whole GSO messages only (47 x 1,380 B fill one; 64 x 64 B), as many as fit in
    /// 256 KiB of payload and the batch's 1,024 entries, so no message leaves short and one sendmmsg carries
    /// several (measured: 64-datagram batches of 1,380 B left as 47 + 17 segments, 0.73x C's full messages).
    /// Without GSO, <see cref="BatchFor"/>.
    /// </summary>
    internal static int GsoBatchFor(DatagramCapabilities capabilities, int payloadBytes)
    {
        var perMessage = capabilities.GsoSegmentsPerMessage(payloadBytes);
        if (perMessage == 1)
        {
            return BatchFor(payloadBytes);
        }

        var messages = Math.Clamp(MaxBatchBytes / (perMessage * payloadBytes), 1, SendBatch.MaxCapacity / perMessage);
        return perMessage * messages;
    }

    /// <summary>
    /// Datagrams per batch: 64, but at most 256 KiB of payload, so that one sendmmsg of large datagrams
    /// (64 x 65,000 bytes = 4 MiB) does not land in the receiver's 4 MiB buffer as one burst it must drop.
    /// </summary>
    internal static int BatchFor(int payloadBytes) => Math.Clamp(MaxBatchBytes / Math.Max(1, payloadBytes), 1, BatchSize);

    /// <summary>Fills <paramref name="batch"/> with numbered datagrams; returns the next number.</summary>
    internal static long Fill(SendBatch batch, int length, DatagramAddress destination, long sequence, long maxDatagrams)
    {
        batch.Clear();
        while (sequence < maxDatagrams && batch.TryAdd(length, destination, out var payload))
        {
            BinaryPrimitives.WriteInt64LittleEndian(payload, sequence++);
        }

        return sequence;
    }

    /// <summary>
    /// Buffers per GRO receive: as many 64 KiB buffers as the coalesced runs of <paramref name="payloadBytes"/>
    /// fill in 256 KiB (a run is at most 64 segments, so 64 x 64 B fill only 4 KiB of a buffer): 4 of 1,380 B
    /// runs, 64 of 64 B runs, where a fixed 4 buffers held only 256 datagrams of 64 B per call against C's 64.
    /// </summary>
    internal static int GroBatchFor(DatagramCapabilities capabilities, int payloadBytes)
    {
        var runBytes = (long)capabilities.GsoSegmentsPerMessage(payloadBytes) * payloadBytes;
        return (int)Math.Clamp(MaxBatchBytes / Math.Max(1, runBytes), BatchFor(ReceiveBatch.DefaultBufferSize), BatchSize);
    }

    /// <summary>Receives batches of <paramref name="capacity"/> buffers of <paramref name="bufferSize"/> on a dedicated thread; 65,536 lets GRO coalesce.</summary>
    internal sealed class BatchReceiver(DatagramSocket socket, int capacity, int bufferSize) : LoopbackReceiver
    {
        private readonly ReceiveBatch _batch = new(capacity, bufferSize);

        public override IPEndPoint LocalEndPoint => socket.LocalEndPoint;

        public override DatagramBackend? Backend => socket.Backend;

        public override void Run(EndpointMeter meter, CancellationToken stop)
        {
            var timeout = TimeSpan.FromMilliseconds(SocketMethod.ReceiveTimeoutMilliseconds);
            while (!stop.IsCancellationRequested)
            {
                var count = socket.Receive(_batch, timeout);
                if (count == 0)
                {
                    meter.Observe();
                    continue;
                }

                long bytes = 0;
                foreach (var datagram in _batch)
                {
                    bytes += datagram.Length;
                }

                meter.Count(count, bytes);
            }
        }

        protected override void Dispose(bool disposing) => socket.Dispose();
    }

    /// <summary>Sends batches of <paramref name="capacity"/> equal-sized datagrams on a dedicated thread.</summary>
    internal sealed class BatchSender(DatagramSocket socket, LoopbackPoint point, IPEndPoint target, int capacity) : LoopbackSender
    {
        private readonly SendBatch _batch = new(capacity, point.PayloadBytes);
        private readonly DatagramAddress _destination = Aim(socket, point, target);

        public override void Run(EndpointMeter meter, long maxDatagrams)
        {
            long sequence = 0;
            while (sequence < maxDatagrams && !meter.IsOver)
            {
                sequence = Fill(_batch, point.PayloadBytes, _destination, sequence, maxDatagrams);
                var sent = socket.Send(_batch);
                meter.Count(sent, (long)sent * point.PayloadBytes);
            }
        }

        protected override void Dispose(bool disposing) => socket.Dispose();
    }
}
