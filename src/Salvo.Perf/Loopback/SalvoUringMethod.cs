using System.Net;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Salvo's io_uring backend through the async API: the receiver awaits 64-datagram batches that a shared ring's thread
/// reaped (multishot recvmsg into provided buffers), the sender's batches go out as linked sendmsg entries on its own
/// ring. With <c>gso</c>, runs of equal datagrams leave as one UDP GSO message each; the receiver has no GRO on this
/// backend. Not in the default method list.
/// </summary>
internal sealed class SalvoUringMethod(bool gso) : ILoopbackMethod
{
    public string Name => gso ? "salvo-uring-gso" : "salvo-uring";

    public string Description => gso
        ? "salvo-uring with UDP GSO on send (64-datagram GSO messages through the ring)"
        : "DatagramSocket.SendAsync/ReceiveAsync with 64-datagram batches on the IoUring backend (multishot recvmsg, linked sendmsg)";

    public bool IsAsync => true;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point) => new SalvoAsyncMethod.Receiver(Open(point), point);

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver) => new SalvoAsyncMethod.Sender(Open(point), point, receiver);

    private DatagramSocket Open(LoopbackPoint point) =>
        SalvoMethod.Open(point with { Backend = HostOs.IsLinux ? DatagramBackend.IoUring : point.Backend }, offloads: gso);
}
