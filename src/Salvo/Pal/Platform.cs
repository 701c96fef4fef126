using System.Buffers;
using System.Net;
using System.Net.Sockets;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// Everything in the library that depends on the operating system, chosen once per process: which datagram
/// backends exist, the socket options that have no portable name, the kernel's counters. Callers ask what the
/// platform can do ("can it shard a port?"), never which OS it is; a new backend (an io_uring ring) is one more
/// member here and one more implementation beside the two below. The tunnel's TUN device and cipher are its own
/// platform layer's (Salvo.Tunnel.Pal.TunnelPlatform).
/// </summary>
internal abstract class Platform
{
    /// <summary>The platform of this process: Linux, or the portable one built on System.Net.Sockets alone.</summary>
    public static Platform Current { get; } = OperatingSystem.IsLinux() ? new LinuxPlatform() : new PortablePlatform();

    /// <summary>Whether several sockets can bind one port and have the kernel spread flows across them (SO_REUSEPORT).</summary>
    public abstract bool ShardsByReusePort { get; }

    /// <summary>Whether a stream can hand a send queue of many blocks to the kernel in one call.</summary>
    public abstract bool GathersStreamSends { get; }

    /// <summary>Null when <paramref name="backend"/> can run here; otherwise why not, naming the option.</summary>
    public abstract string? RefuseBackend(DatagramBackend backend);

    /// <summary>Null when a socket asking for <paramref name="backend"/> gets it here; otherwise why it falls back to another.</summary>
    public virtual string? BackendFallback(DatagramBackend backend) => null;

    /// <summary>Null when several sockets of <paramref name="backend"/> can share one address and port; otherwise why one must serve it alone.</summary>
    public virtual string? RefuseSharedPort(DatagramBackend backend) => null;

    /// <summary>Null when a socket of <paramref name="backend"/> can bind <paramref name="address"/>; otherwise what the address must be, and why.</summary>
    public virtual string? RefuseLocalAddress(DatagramBackend backend, IPAddress address) => null;

    /// <summary>The backend that moves a new socket's datagrams, as <paramref name="options"/> asks.</summary>
    public abstract DatagramPal OpenDatagram(Socket socket, DatagramSocketOptions options, SocketCounters counters);

    /// <summary>Lets other sockets bind the same port; false when the platform spreads no flows (the caller decides what else to do).</summary>
    public abstract bool TryEnableReusePort(Socket socket);

    /// <summary>Sets don't-fragment for every family the socket sends; throws <see cref="SocketException"/> when refused.</summary>
    public abstract void EnableDontFragment(Socket socket);

    /// <summary>Lets a socket bound to an address with port 0 pick its port at connect time, per destination; does nothing where unsupported.</summary>
    public abstract void DeferPortToConnect(Socket socket);

    /// <summary>Sets the kernel's busy poll time on a socket; null when done, otherwise why not.</summary>
    public abstract string? TrySetKernelBusyPoll(Socket socket, int microseconds);

    /// <summary>The count of datagrams the kernel dropped on <paramref name="socket"/> (a full receive buffer); null where the platform does not say.</summary>
    public abstract IKernelDropCounter? OpenKernelDropCounter(Socket socket);

    /// <summary>The largest datagram the route to <paramref name="destination"/> carries unfragmented, as seen from <paramref name="asking"/>.</summary>
    public abstract int MaxDatagramSize(DatagramAddress destination, Socket asking);

    /// <summary>
    /// Sends what the socket buffer takes now of a queue of many blocks, without waiting: the bytes sent, 0 when the
    /// buffer is full. Only where <see cref="GathersStreamSends"/>.
    /// </summary>
    public abstract long TrySendGathered(Socket socket, in ReadOnlySequence<byte> queue);
}
