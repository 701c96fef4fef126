using System.Buffers;
using System.Net.Sockets;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>Any OS: System.Net.Sockets alone; what it has no portable name for is reported off, never faked.</summary>
internal sealed class PortablePlatform : Platform
{
    public override bool ShardsByReusePort => false;

    public override bool GathersStreamSends => false;

    public override string? RefuseBackend(DatagramBackend backend) =>
        backend is DatagramBackend.Auto or DatagramBackend.Portable ? null : $"Backend {backend} needs Linux; use Auto or Portable.";

    public override DatagramPal OpenDatagram(Socket socket, DatagramSocketOptions options, SocketCounters counters) =>
        new PortableDatagramPal(socket, counters, options);

    public override bool TryEnableReusePort(Socket socket) => false;

    /// <summary>The runtime's own mapping: IP_DONTFRAGMENT / IPV6_DONTFRAG on Windows and the BSDs.</summary>
    public override void EnableDontFragment(Socket socket)
    {
        socket.DontFragment = true;
        if (socket.AddressFamily == AddressFamily.InterNetworkV6 && socket.DualMode)
        {
            socket.SetSocketOption(SocketOptionLevel.IP, SocketOptionName.DontFragment, true);
        }
    }

    public override void DeferPortToConnect(Socket socket)
    {
    }

    public override string? TrySetKernelBusyPoll(Socket socket, int microseconds) => "SO_BUSY_POLL is Linux-only";

    public override IKernelDropCounter? OpenKernelDropCounter(Socket socket) => null;

    public override int MaxDatagramSize(DatagramAddress destination, Socket asking) => SendBatch.DefaultMaxDatagramSize;

    public override long TrySendGathered(Socket socket, in ReadOnlySequence<byte> queue) =>
        throw new PlatformNotSupportedException("Gathered stream sends need Linux.");
}
