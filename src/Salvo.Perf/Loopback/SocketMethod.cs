using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Best plain .NET practice: one Socket per end on a dedicated thread, a pinned buffer, and the blocking
/// Span + SocketAddress overloads of SendTo/ReceiveFrom (.NET 8), which allocate nothing. One datagram
/// per system call.
/// </summary>
internal sealed class SocketMethod : ILoopbackMethod
{
    /// <summary>How long a blocking receive waits before it looks at the stop signal again.</summary>
    internal const int ReceiveTimeoutMilliseconds = 20;

    public string Name => "socket";

    public string Description => "plain .NET at its best, the baseline of 'vs socket': Socket.SendTo/ReceiveFrom(Span, SocketAddress), blocking, dedicated threads, no allocation";

    public bool IsAsync => false;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point) => new Receiver(point);

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver) => new Sender(point, receiver);

    private static Socket Open(LoopbackPoint point)
    {
        var socket = new Socket(point.ReceiverAddress.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        socket.ReceiveBufferSize = point.SocketBufferBytes;
        socket.SendBufferSize = point.SocketBufferBytes;
        socket.Bind(new IPEndPoint(point.ReceiverAddress, 0));
        return socket;
    }

    private sealed class Receiver : LoopbackReceiver
    {
        private readonly Socket _socket;
        private readonly byte[] _buffer = GC.AllocateUninitializedArray<byte>(65_536, pinned: true);

        public Receiver(LoopbackPoint point)
        {
            _socket = Open(point);
            _socket.ReceiveTimeout = ReceiveTimeoutMilliseconds;
        }

        public override IPEndPoint LocalEndPoint => (IPEndPoint)_socket.LocalEndPoint!;

        public override void Run(EndpointMeter meter, CancellationToken stop)
        {
            var source = new SocketAddress(_socket.AddressFamily);
            while (!stop.IsCancellationRequested)
            {
                int received;
                try
                {
                    received = _socket.ReceiveFrom(_buffer.AsSpan(), SocketFlags.None, source);
                }
                catch (SocketException e) when (e.SocketErrorCode is SocketError.TimedOut or SocketError.WouldBlock)
                {
                    meter.Observe();
                    continue;
                }

                meter.Count(1, received);
            }
        }

        protected override void Dispose(bool disposing) => _socket.Dispose();
    }

    private sealed class Sender : LoopbackSender
    {
        private readonly Socket _socket;
        private readonly SocketAddress? _target;
        private readonly byte[] _datagram;

        public Sender(LoopbackPoint point, IPEndPoint target)
        {
            _socket = Open(point);
            if (point.Connected)
            {
                _socket.Connect(target);
            }
            else
            {
                _target = target.Serialize();
            }

            _datagram = GC.AllocateArray<byte>(point.PayloadBytes, pinned: true);
        }

        public override void Run(EndpointMeter meter, long maxDatagrams)
        {
            for (long sequence = 0; sequence < maxDatagrams && !meter.IsOver; sequence++)
            {
                BinaryPrimitives.WriteInt64LittleEndian(_datagram, sequence);
                var sent = _target is null
                    ? _socket.Send(_datagram.AsSpan(), SocketFlags.None)
                    : _socket.SendTo(_datagram.AsSpan(), SocketFlags.None, _target);
                meter.Count(1, sent);
            }
        }

        protected override void Dispose(bool disposing) => _socket.Dispose();
    }
}
