using System.Net;
using System.Net.Sockets;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// Turns datagrams into a received batch the way the device gets one: sent from one loopback socket to a Salvo
/// <see cref="DatagramSocket"/> bound to port 0 and received there in one call, for tests of the engine's batch path.
/// </summary>
internal sealed class LoopbackBatch : IDisposable
{
    private readonly DatagramSocket _receiver = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
    private readonly Socket _sender = new(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);

    public LoopbackBatch() => _sender.Bind(new IPEndPoint(IPAddress.Loopback, 0));

    public ReceiveBatch Batch { get; } = new(ReceiveBatch.DefaultCapacity, ReceiveBatch.DefaultBufferSize);

    /// <summary>Sends <paramref name="datagrams"/> (at most a batch) and receives them, all in <see cref="Batch"/>.</summary>
    public ReceiveBatch SendAndReceive(IReadOnlyList<byte[]> datagrams)
    {
        Assert.InRange(datagrams.Count, 1, Batch.Capacity);
        foreach (var datagram in datagrams)
        {
            _sender.SendTo(datagram, _receiver.LocalEndPoint);
        }

        // A loopback send is in the receiver's queue when sendto returns, so one receive takes them all.
        _receiver.Receive(Batch, TimeSpan.FromSeconds(5));
        Assert.Equal(datagrams.Count, Batch.Count);
        return Batch;
    }

    public void Dispose()
    {
        _receiver.Dispose();
        _sender.Dispose();
    }
}
