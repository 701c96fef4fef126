namespace Salvo.Tests.Common;

/// <summary>
/// What a test needs of the machine it runs on, combined with <c>|</c> in <see cref="RequiresFactAttribute"/> and
/// <see cref="RequiresTheoryAttribute"/>; checked in the order of the values, and the first one missing is the skip reason.
/// </summary>
[Flags]
public enum Requirement
{
    /// <summary>Nothing beyond what <see cref="RequiresFactAttribute.Tools"/> or <see cref="RequiresFactAttribute.OpenFiles"/> name.</summary>
    None = 0,

    /// <summary>Linux (recvmmsg/sendmmsg, /proc, sched_setaffinity).</summary>
    Linux = 1 << 0,

    /// <summary>Root (CAP_NET_ADMIN: SO_MARK, network namespaces, BPF).</summary>
    Root = 1 << 1,

    /// <summary>Network namespaces this process can create: Linux, root and iproute2's <c>ip</c>.</summary>
    Netns = 1 << 2,

    /// <summary>The kernel's TUN device, /dev/net/tun.</summary>
    Tun = 1 << 3,

    /// <summary>IPv6 sockets.</summary>
    IPv6 = 1 << 4,

    /// <summary>Two CPUs this process may run on.</summary>
    TwoCpus = 1 << 5,

    /// <summary>A measurement, not a test: runs only when SALVO_MEASURE=1, so it stays out of the default run.</summary>
    Measure = 1 << 6,

    /// <summary>The io_uring backend (kernel 5.19+, not refused by seccomp or io_uring_disabled).</summary>
    IoUring = 1 << 7,

    /// <summary>BPF objects this process may create (root, or CAP_BPF and CAP_NET_ADMIN).</summary>
    Bpf = 1 << 8,

    /// <summary>The two-host lab and the AF_XDP backend on its veth pair.</summary>
    AfXdpLab = 1 << 9,

    /// <summary>The two-host lab with a Salvo tunnel in each: /dev/net/tun, ping and iperf3 too.</summary>
    TunnelLab = 1 << 10,

    /// <summary>The stock wireguard-go and wg, for a tunnel end that is not Salvo.</summary>
    WireGuardGo = 1 << 11,

    /// <summary>The salvo apphost as a userspace WireGuard implementation, in the lab.</summary>
    UserspaceLab = 1 << 12,

    /// <summary>What <c>salvo lab</c> needs (ip, taskset, root).</summary>
    VethLab = 1 << 13,

    /// <summary>The Debian package's lab: the userspace lab, dpkg, apt-get, the native toolchain, wg-quick, Prometheus.</summary>
    DebianPackage = 1 << 14,
}
