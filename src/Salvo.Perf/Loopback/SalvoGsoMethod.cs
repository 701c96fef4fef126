using System.Net;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Salvo's offloaded path: the sender's 64-datagram batches of equal size leave as one UDP GSO message each
/// (the kernel segments them), and the receiver's 65,536-byte buffers let UDP GRO hand over many datagrams of
/// the flow per buffer, which Salvo splits. Blocking calls on dedicated threads, like <c>salvo</c>.
/// </summary>
internal sealed class SalvoGsoMethod : ILoopbackMethod
{
    public string Name => "salvo-gso";

    public string Description => "salvo with UDP GSO on send and GRO on receive (64-datagram GSO messages, 65,536-byte receive buffers)";

    public bool IsAsync => false;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point) =>
        new SalvoMethod.BatchReceiver(SalvoMethod.Open(point, offloads: true), ReceiveBatch.DefaultBufferSize);

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver) =>
        new SalvoMethod.BatchSender(SalvoMethod.Open(point, offloads: true), point, receiver);
}
