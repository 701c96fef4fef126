using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>Linux: the batched backend, SO_REUSEPORT sharding, SO_BUSY_POLL, SO_MEMINFO drop counters, route MTU, gathered sends.</summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxPlatform : Platform
{
    public override bool ShardsByReusePort => true;

    public override bool GathersStreamSends => true;

    public override string? RefuseBackend(DatagramBackend backend) => backend == DatagramBackend.AfXdp ? AfXdpProbe.Refusal : null;

    public override string? BackendFallback(DatagramBackend backend) => backend == DatagramBackend.IoUring ? IoUringEngines.Refusal : null;

    public override string? RefuseSharedPort(DatagramBackend backend) => backend == DatagramBackend.AfXdp ? AfXdpLimits.OneSocketPerInterface : null;

    public override string? RefuseLocalAddress(DatagramBackend backend, IPAddress address) =>
        backend == DatagramBackend.AfXdp ? AfXdpLimits.RefuseAddress(address) : null;

    public override DatagramPal OpenDatagram(Socket socket, DatagramSocketOptions options, SocketCounters counters)
    {
        if (options.Backend == DatagramBackend.AfXdp)
        {
            return new AfXdpDatagramPal(socket, counters, options);
        }

        if (options.Backend == DatagramBackend.IoUring)
        {
            if (IoUringEngines.Refusal is null)
            {
                return new IoUringDatagramPal(socket, counters, options);
            }

            IoUringFallbackLog.Once(options.Logger, IoUringEngines.Refusal);
        }

        var batched = options.Backend switch
        {
            DatagramBackend.LinuxBatched or DatagramBackend.IoUring => true,
            DatagramBackend.Portable => false,
            _ => LinuxDatagramPal.IsSupported,
        };

        return batched ? new LinuxDatagramPal(socket, counters, options) : new PortableDatagramPal(socket, counters, options);
    }

    /// <summary>Null when the io_uring backend runs here; otherwise what the kernel refused (the backend then falls back to LinuxBatched).</summary>
    public static string? IoUringRefusal => IoUringEngines.Refusal;

    public override bool TryEnableReusePort(Socket socket)
    {
        SetInt(socket, Constants.SOL_SOCKET, Constants.SO_REUSEPORT, 1);
        return true;
    }

    /// <summary>
    /// IP_PMTUDISC_PROBE (include/uapi/linux/in.h; ip(7)): DF set and never fragmented locally, against the route's
    /// MTU rather than a learned one, so a spoofed ICMP "fragmentation needed" cannot shrink it. IPv4 traffic of a
    /// dual-stack socket follows the IPv4 option; IPV6_DONTFRAG (RFC 3542, ipv6(7)) on top for IPv6.
    /// </summary>
    public override void EnableDontFragment(Socket socket)
    {
        var isIPv6 = socket.AddressFamily == AddressFamily.InterNetworkV6;
        if (!isIPv6 || socket.DualMode)
        {
            SetInt(socket, Constants.IPPROTO_IP, Constants.IP_MTU_DISCOVER, Constants.IP_PMTUDISC_PROBE);
        }

        if (isIPv6)
        {
            SetInt(socket, Constants.IPPROTO_IPV6, Constants.IPV6_MTU_DISCOVER, Constants.IP_PMTUDISC_PROBE);
            SetInt(socket, Constants.IPPROTO_IPV6, Constants.IPV6_DONTFRAG, 1);
        }
    }

    /// <summary>
    /// IP_BIND_ADDRESS_NO_PORT: pick the port at connect time, per destination, instead of at bind time from the ports
    /// free for every destination; without it, tens of thousands of binds to one source address scan the bind table
    /// and run out of ports early.
    /// </summary>
    public override void DeferPortToConnect(Socket socket)
    {
        if (socket.AddressFamily == AddressFamily.InterNetwork)
        {
            SetInt(socket, Constants.IPPROTO_IP, Constants.IP_BIND_ADDRESS_NO_PORT, 1);
        }
    }

    public override string? TrySetKernelBusyPoll(Socket socket, int microseconds)
    {
        try
        {
            SetInt(socket, Constants.SOL_SOCKET, Constants.SO_BUSY_POLL, microseconds);
            return null;
        }
        catch (SocketException e)
        {
            // EPERM above net.core.busy_poll without CAP_NET_ADMIN (net/core/sock.c, sk_setsockopt).
            return $"{e.SocketErrorCode}: {e.Message}";
        }
    }

    public override IKernelDropCounter? OpenKernelDropCounter(Socket socket) => LinuxKernelDropReader.TryCreate(socket);

    public override int MaxDatagramSize(DatagramAddress destination, Socket asking) => LinuxPathMtu.MaxDatagramSize(destination, asking);

    public override long TrySendGathered(Socket socket, in ReadOnlySequence<byte> queue) => LinuxGatheredSend.TrySend(socket, queue);

    private static void SetInt(Socket socket, int level, int name, int value)
    {
        var errno = LinuxSocketOption.TrySet(socket.SafeHandle, level, name, value);
        if (errno != Errno.None)
        {
            throw new SocketException((int)errno.ToSocketError());
        }
    }
}
