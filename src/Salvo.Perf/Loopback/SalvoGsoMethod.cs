using System.Net;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Salvo's offloaded path: the sender's batches of equal-sized datagrams leave as full UDP GSO messages, several per
/// sendmmsg (the kernel segments them), and the receiver's 65,536-byte buffers let UDP GRO hand over many datagrams of
/// the flow per buffer, which Salvo splits. Blocking calls on dedicated threads, like <c>salvo</c>.
/// </summary>
internal sealed class SalvoGsoMethod : ILoopbackMethod
{
    public string Name => "salvo-gso";

    public string Description => "salvo with UDP GSO on send and GRO on receive (full GSO messages: 47 x 1,380 B or 64 x 64 B, several per sendmmsg; 65,536-byte receive buffers)";

    public bool IsAsync => false;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point)
    {
        var socket = SalvoMethod.Open(point, offloads: true);
        return new SalvoMethod.BatchReceiver(socket, SalvoMethod.GroBatchFor(socket.Capabilities, point.PayloadBytes), ReceiveBatch.DefaultBufferSize);
    }

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver)
    {
        var socket = SalvoMethod.Open(point, offloads: true);
        return new SalvoMethod.BatchSender(socket, point, receiver, SalvoMethod.GsoBatchFor(socket.Capabilities, point.PayloadBytes));
    }
}
