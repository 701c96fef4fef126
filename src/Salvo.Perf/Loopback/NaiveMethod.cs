using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Perf.Loopback;

/// <summary>
/// What most .NET code does: UdpClient.SendAsync(byte[], int, IPEndPoint) and UdpClient.ReceiveAsync,
/// which allocate a byte[] and an IPEndPoint for every datagram received.
/// </summary>
internal sealed class NaiveMethod : ILoopbackMethod
{
    public string Name => "naive";

    public string Description => "the usual .NET code: UdpClient.SendAsync/ReceiveAsync with IPEndPoint (allocates per datagram)";

    public bool IsAsync => true;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point) => new Receiver(point);

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver) => new Sender(point, receiver);

    private sealed class Receiver : LoopbackReceiver
    {
        private readonly UdpClient _client;

        public Receiver(LoopbackPoint point)
        {
            _client = new UdpClient(new IPEndPoint(point.ReceiverAddress, 0));
            _client.Client.ReceiveBufferSize = point.SocketBufferBytes;
        }

        public override IPEndPoint LocalEndPoint => (IPEndPoint)_client.Client.LocalEndPoint!;

        public override void Run(EndpointMeter meter, CancellationToken stop) => SingleThreadContext.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                UdpReceiveResult result;
                try
                {
                    result = await _client.ReceiveAsync(stop);
                }
                catch (OperationCanceledException)
                {
                    break;
                }

                meter.Count(1, result.Buffer.Length);
            }
        });

        protected override void Dispose(bool disposing) => _client.Dispose();
    }

    private sealed class Sender : LoopbackSender
    {
        private readonly UdpClient _client;
        private readonly IPEndPoint? _target;
        private readonly int _length;

        public Sender(LoopbackPoint point, IPEndPoint target)
        {
            _client = new UdpClient(new IPEndPoint(point.ReceiverAddress, 0));
            _client.Client.SendBufferSize = point.SocketBufferBytes;
            if (point.Connected)
            {
                _client.Connect(target);
            }
            else
            {
                _target = target;
            }

            _length = point.PayloadBytes;
        }

        public override void Run(EndpointMeter meter, long maxDatagrams) => SingleThreadContext.Run(async () =>
        {
            var datagram = new byte[_length];
            for (long sequence = 0; sequence < maxDatagrams && !meter.IsOver; sequence++)
            {
                BinaryPrimitives.WriteInt64LittleEndian(datagram, sequence);
                await _client.SendAsync(datagram, datagram.Length, _target);
                meter.Count(1, datagram.Length);
            }
        });

        protected override void Dispose(bool disposing) => _client.Dispose();
    }
}
