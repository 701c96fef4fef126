using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel;

public sealed partial class TunnelDevice
{
    /// <summary>
    /// The bytes per datagram a new output's send batch starts with: a 1,420-byte packet (the usual tunnel MTU) sealed,
    /// 1,452. A longer datagram grows the batch once (see <see cref="Output.AddDatagram"/>).
    /// </summary>
    private const int InitialDatagramSize = Configuration.TunnelConfiguration.DefaultMtu + Protocol.MessageLayout.TransportMinimumSize;

    /// <summary>
    /// Maps the engine's output onto the UDP send batch, the TCP fallback's frames and the device. An output that
    /// receives for a TCP connection (<paramref name="flushesDevice"/>) also flushes the packets the device joins, as
    /// the inbound loop does after each batch: nothing else would write them while UDP is silent. Neither the batch
    /// nor the frames refuse a datagram the engine makes: a longer one than they were sized for is taken after a flush
    /// into a larger buffer, which stays (they never shrink); the engine makes none longer than 65,507 bytes.
    /// </summary>
    private sealed class Output(TunnelDevice device, bool flushesDevice = false) : IBatchedOutput
    {
        private readonly PendingTcpFrames _tcpFrames = new(BatchSize, InitialDatagramSize);
        private readonly ControlSends _control = new(() => device._sockets.Socket, device.Engine.Counters);
        private SendBatch _batch = new(BatchSize, InitialDatagramSize);

        public Span<byte> AddControlDatagram(int length, DatagramAddress destination, bool expendable) =>
            TcpPathAddress.IsTcp(destination) ? AddTcpFrame(length, destination) : _control.Add(length, destination, expendable);

        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            if (TcpPathAddress.IsTcp(destination))
            {
                return AddTcpFrame(length, destination);
            }

            if (length > _batch.MaxDatagramSize)
            {
                Flush();
                _batch = new SendBatch(BatchSize, Math.Min(SendBatch.DefaultMaxDatagramSize, Math.Max(length, device._packetSlotSize + Protocol.MessageLayout.TransportMinimumSize)));
            }

            if (!_batch.TryAdd(length, destination, out var payload))
            {
                Flush();
                _batch.TryAdd(length, destination, out payload);
            }

            return payload;
        }

        public void WritePacket(ReadOnlySpan<byte> packet)
        {
            if (!device._tun.Write(packet))
            {
                Interlocked.Increment(ref device._tunWriteFailures);
            }
        }

        public void Flush()
        {
            _control.Flush();
            if (_batch.Count > 0)
            {
                device._sockets.Socket.Send(_batch);
                _batch.Clear();
            }

            if (_tcpFrames.Count > 0)
            {
                _tcpFrames.Flush(device._tcp);
            }

            if (flushesDevice)
            {
                device.FlushDevice();
            }
        }

        /// <summary>Forgets what was added since the last flush: after an error a reservation may never have been written.</summary>
        public void Discard()
        {
            _batch.Clear();
            _tcpFrames.Clear();
            _control.Clear();
        }

        private Span<byte> AddTcpFrame(int length, DatagramAddress path)
        {
            if (!_tcpFrames.TryAdd(length, path, out var message))
            {
                Flush();
                _tcpFrames.TryAdd(length, path, out message);
            }

            return message;
        }
    }
}
