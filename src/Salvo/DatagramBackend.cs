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
}
