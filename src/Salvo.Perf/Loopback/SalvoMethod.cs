using System.Buffers.Binary;
using System.Net;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Salvo's batched path: a <see cref="DatagramSocket"/> (backend Auto: recvmmsg/sendmmsg on Linux) with a
/// 64-datagram <see cref="SendBatch"/> and <see cref="ReceiveBatch"/>, blocking calls on dedicated threads.
/// </summary>
internal sealed class SalvoMethod : ILoopbackMethod
{
    /// <summary>Datagrams per batch: the library's default, 64.</summary>
    internal const int BatchSize = 64;

    public string Name => "salvo";

    public string Description => "DatagramSocket.Send/Receive with 64-datagram batches (sendmmsg/recvmmsg), blocking, dedicated threads";

    public bool IsAsync => false;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point) => new Receiver(Open(point), point);

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver) => new Sender(Open(point), point, receiver);

    internal static DatagramSocket Open(LoopbackPoint point) => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(point.ReceiverAddress, 0),
        ReceiveBufferSize = point.SocketBufferBytes,
        SendBufferSize = point.SocketBufferBytes,
        Backend = DatagramBackend.Auto,
    });

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

    private sealed class Receiver(DatagramSocket socket, LoopbackPoint point) : LoopbackReceiver
    {
        private readonly ReceiveBatch _batch = new(BatchSize, Math.Min(ReceiveBatch.DefaultBufferSize, point.PayloadBytes + 1));

        public override IPEndPoint LocalEndPoint => socket.LocalEndPoint;

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

    private sealed class Sender(DatagramSocket socket, LoopbackPoint point, IPEndPoint target) : LoopbackSender
    {
        private readonly SendBatch _batch = new(BatchSize, point.PayloadBytes);
        private readonly DatagramAddress _destination = DatagramAddress.FromIPEndPoint(target);

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
