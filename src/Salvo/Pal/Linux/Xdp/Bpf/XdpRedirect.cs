using System.Net;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using static Salvo.Interop.Linux.BpfConstants;

namespace Salvo.Pal;

/// <summary>
/// The XDP program that sends one UDP port's datagrams to AF_XDP sockets, attached to one interface for the life of
/// this object: an XSKMAP with one slot per queue, the program, and the BPF link that attaches it. The link is a
/// descriptor, so the program is detached when it is disposed and also when the process dies, even by SIGKILL
/// (kernel/bpf/syscall.c releases a link with its last descriptor). Create it on a thread in the interface's network
/// namespace: the interface index is resolved there.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class XdpRedirect : IDisposable
{
    private readonly SafeDescriptorHandle _map;
    private readonly SafeDescriptorHandle _program;
    private readonly SafeDescriptorHandle _link;

    private XdpRedirect(int ifIndex, string interfaceName, int queueCount, XdpAttachMode mode, string? fallbackReason, SafeDescriptorHandle map, SafeDescriptorHandle program, SafeDescriptorHandle link)
    {
        IfIndex = ifIndex;
        InterfaceName = interfaceName;
        QueueCount = queueCount;
        Mode = mode;
        FallbackReason = fallbackReason;
        _map = map;
        _program = program;
        _link = link;
    }

    public int IfIndex { get; }

    public string InterfaceName { get; }

    public int QueueCount { get; }

    /// <summary>The mode in force: <see cref="XdpAttachMode.Native"/> or <see cref="XdpAttachMode.Generic"/>.</summary>
    public XdpAttachMode Mode { get; }

    /// <summary>Why native mode was refused when <see cref="XdpAttachMode.Auto"/> fell back to generic; null otherwise.</summary>
    public string? FallbackReason { get; }

    /// <summary>
    /// Loads the program for <paramref name="udpPort"/> (and <paramref name="address"/>, see <see cref="XdpUdpMatch"/>)
    /// and attaches it to interface <paramref name="ifIndex"/>.
    /// </summary>
    /// <param name="ifIndex">The interface, in the calling thread's network namespace.</param>
    /// <param name="udpPort">The bound UDP port.</param>
    /// <param name="queueCount">The interface's receive queue count: the XSKMAP's size, one slot per queue.</param>
    /// <param name="mode">Native, generic, or native with a reported fallback to generic.</param>
    /// <param name="address">The bound address, or null for any address of either family.</param>
    /// <exception cref="InvalidOperationException">
    /// The interface does not exist, already has an XDP program, or the kernel refused the map, the program or the
    /// attachment; the message says which and why.
    /// </exception>
    public static XdpRedirect Attach(int ifIndex, int udpPort, int queueCount, XdpAttachMode mode, IPAddress? address = null)
    {
        var match = new XdpUdpMatch(udpPort, address);
        NetworkInterfaceInfo link;
        using (var netlink = RouteNetlink.Open())
        {
            link = netlink.GetLink(ifIndex) ?? throw new InvalidOperationException($"No network interface has index {ifIndex} in this network namespace.");
        }

        if (link.XdpAttached != NetlinkConstants.XDP_ATTACHED_NONE)
        {
            throw AlreadyAttached(link);
        }

        SafeDescriptorHandle? map = null;
        SafeDescriptorHandle? program = null;
        try
        {
            map = BpfObjects.CreateXskMap(queueCount);
            program = BpfObjects.LoadXdpProgram(XdpUdpProgram.Build(match, (int)map.DangerousGetHandle()), "salvo_xsk_udp");
            string? fallbackReason = null;
            var errno = Errno.EOPNOTSUPP;
            SafeDescriptorHandle? attached = null;
            if (mode != XdpAttachMode.Generic)
            {
                errno = BpfObjects.CreateXdpLink(program, ifIndex, XDP_FLAGS_DRV_MODE, out attached);
                if (errno == Errno.None)
                {
                    return new XdpRedirect(ifIndex, link.Name, queueCount, XdpAttachMode.Native, null, map, program, attached!);
                }

                ThrowIfBusy(errno, ifIndex, link);
                if (mode == XdpAttachMode.Native)
                {
                    throw new InvalidOperationException($"Attaching XDP in native (driver) mode to {link.Name} failed: {errno}{Hint(errno)}.");
                }

                fallbackReason = $"native (driver) XDP refused on {link.Name} ({errno}); generic (skb) mode in use";
            }

            errno = BpfObjects.CreateXdpLink(program, ifIndex, XDP_FLAGS_SKB_MODE, out attached);
            if (errno == Errno.None)
            {
                return new XdpRedirect(ifIndex, link.Name, queueCount, XdpAttachMode.Generic, fallbackReason, map, program, attached!);
            }

            ThrowIfBusy(errno, ifIndex, link);
            throw new InvalidOperationException($"Attaching XDP in generic (skb) mode to {link.Name} failed: {errno}{Hint(errno)}.");
        }
        catch
        {
            program?.Dispose();
            map?.Dispose();
            throw;
        }
    }

    /// <summary>Points queue <paramref name="queue"/>'s slot at an AF_XDP socket bound to that queue.</summary>
    /// <exception cref="InvalidOperationException">The kernel refused (the socket is not bound, or not to this interface).</exception>
    public void RegisterSocket(int queue, SafeHandle xsk)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(queue);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(queue, QueueCount);
        using var lease = new DescriptorLease(xsk);
        var errno = BpfObjects.UpdateElement(_map, (uint)queue, (uint)lease.Descriptor);
        if (errno != Errno.None)
        {
            throw new InvalidOperationException($"Registering the AF_XDP socket for queue {queue} of {InterfaceName} failed: {errno} (a socket must be bound to its queue before it is registered).");
        }
    }

    public void Dispose()
    {
        // The link first: the program leaves the interface before its map closes.
        _link.Dispose();
        _program.Dispose();
        _map.Dispose();
    }

    private static void ThrowIfBusy(Errno errno, int ifIndex, NetworkInterfaceInfo before)
    {
        // dev_xdp_attach (net/core/dev.c) answers EBUSY when a program or link holds the mode asked for, EEXIST when
        // the other mode holds one.
        if (errno is Errno.EBUSY or Errno.EEXIST)
        {
            using var netlink = RouteNetlink.Open();
            throw AlreadyAttached(netlink.GetLink(ifIndex) ?? before);
        }
    }

    private static InvalidOperationException AlreadyAttached(NetworkInterfaceInfo link) => new(
        $"Interface {link.Name} already has an XDP program: {link.DescribeXdp()}. Only one XDP program per interface is supported; detach it first (ip link set dev {link.Name} xdp off, for one not held by a link).");

    private static string Hint(Errno errno) => errno == Errno.EPERM ? " (attaching XDP needs root or CAP_NET_ADMIN and CAP_BPF)" : string.Empty;
}
