using System.Net;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Salvo's batched path through the async API (SendAsync/ReceiveAsync of whole batches), for comparison
/// with the blocking model of <see cref="SalvoMethod"/>. Not in the default method list.
/// </summary>
internal sealed class SalvoAsyncMethod : ILoopbackMethod
{
    public string Name => "salvo-async";

    public string Description => "DatagramSocket.SendAsync/ReceiveAsync with 64-datagram batches (async model)";

    public bool IsAsync => true;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point) => new Receiver(SalvoMethod.Open(point, offloads: false), point);

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver) => new Sender(SalvoMethod.Open(point, offloads: false), point, receiver);

    /// <summary>Awaits batches on one thread (a single-threaded context, so continuations do not hop).</summary>
    internal sealed class Receiver(DatagramSocket socket, LoopbackPoint point) : LoopbackReceiver
    {
        private readonly ReceiveBatch _batch = new(SalvoMethod.BatchFor(point.PayloadBytes + 1), Math.Min(ReceiveBatch.DefaultBufferSize, point.PayloadBytes + 1));

        public override IPEndPoint LocalEndPoint => socket.LocalEndPoint;

        public override DatagramBackend? Backend => socket.Backend;

        public override void Run(EndpointMeter meter, CancellationToken stop) => SingleThreadContext.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                int count;
                try
                {
                    count = await socket.ReceiveAsync(_batch, stop);
                }
                catch (OperationCanceledException)
                {
                    break;
                }

                long bytes = 0;
                foreach (var datagram in _batch)
                {
                    bytes += datagram.Length;
                }

                meter.Count(count, bytes);
            }
        });

        protected override void Dispose(bool disposing) => socket.Dispose();
    }

    /// <summary>Awaits batch sends on one thread.</summary>
    internal sealed class Sender(DatagramSocket socket, LoopbackPoint point, IPEndPoint target) : LoopbackSender
    {
        private readonly SendBatch _batch = new(SalvoMethod.BatchFor(point.PayloadBytes), point.PayloadBytes);
        private readonly DatagramAddress _destination = SalvoMethod.Aim(socket, point, target);

        public override void Run(EndpointMeter meter, long maxDatagrams) => SingleThreadContext.Run(async () =>
        {
            long sequence = 0;
            while (sequence < maxDatagrams && !meter.IsOver)
            {
                sequence = SalvoMethod.Fill(_batch, point.PayloadBytes, _destination, sequence, maxDatagrams);
                var sent = await socket.SendAsync(_batch);
                meter.Count(sent, (long)sent * point.PayloadBytes);
            }
        });

        protected override void Dispose(bool disposing) => socket.Dispose();
    }
}
