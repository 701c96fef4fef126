using System.Runtime.Versioning;

namespace Salvo;

/// <summary>Which implementation moves a <see cref="DatagramSocket"/>'s datagrams.</summary>
public enum DatagramBackend
{
    /// <summary>Linux's batched backend where the platform supports it, else the portable one. The default.</summary>
    Auto = 0,

    /// <summary>recvmmsg/sendmmsg on the socket's descriptor: many datagrams per system call (Linux only).</summary>
    [SupportedOSPlatform("linux")]
    LinuxBatched = 1,

    /// <summary>System.Net.Sockets with the allocation-free SocketAddress overloads: one datagram per call, any OS.</summary>
    Portable = 2,

    /// <summary>
    /// io_uring (Linux only): each socket's receive is one multishot recvmsg on a ring shared with other sockets, whose
    /// thread reaps completions in batches; sends are linked sendmsg entries on the sending thread's ring. Falls back to
    /// <see cref="LinuxBatched"/> (and logs why, once) where the kernel refuses io_uring or a feature it needs
    /// (<see cref="DatagramSocket.IsBackendAvailable"/> says so before any socket opens). A thread that makes every receive
    /// on a socket can have a ring of its own: <see cref="DatagramSocket.ClaimReceivesForThisThread"/>.
    /// </summary>
    [SupportedOSPlatform("linux")]
    IoUring = 3,

    /// <summary>
    /// AF_XDP (Linux only): an XDP program on the interface that holds the bound address hands that port's UDP frames to
    /// AF_XDP sockets (one per receive queue of the interface), and datagrams move through rings shared with the kernel
    /// with no system call per datagram, framed by Salvo (Ethernet, IPv4 or IPv6, UDP). The UDP socket still binds the
    /// port, which reserves it, and carries what does not come through the interface (datagrams from this host).
    /// Needs root or CAP_NET_ADMIN, CAP_BPF and CAP_NET_RAW, a socket bound to an interface's own address, and a queue
    /// and an XDP slot of that interface to itself: one such socket per interface. <see cref="DatagramSocket.IsBackendAvailable"/>
    /// says why not where it cannot run; a socket that asks for it where it cannot run fails to open, naming the reason.
    /// No GSO or GRO, no IP fragments, and the kernel's firewall does not see its packets.
    /// <see cref="DatagramCapabilities.AfXdp"/> says whether the driver runs it in zero-copy or copy mode.
    /// </summary>
    [SupportedOSPlatform("linux")]
    AfXdp = 4,
}
