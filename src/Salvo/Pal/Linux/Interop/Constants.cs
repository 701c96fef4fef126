namespace Salvo.Interop.Linux;

/// <summary>
/// Constants read off the kernel's uapi headers (the header of each group is named above it; the options are
/// described in socket(7), ip(7), ipv6(7) and udp(7)). LinuxAbiTests asserts them. The poll(2) events, which the
/// tunnel needs too, are in src/Common/Interop/Linux/Constants.Poll.cs.
/// </summary>
internal static partial class Constants
{
    // include/linux/socket.h
    public const int AF_INET = 2;
    public const int AF_INET6 = 10;

    // SOL_SOCKET: include/uapi/asm-generic/socket.h; SOL_UDP: include/linux/socket.h; IPPROTO_*: include/uapi/linux/in.h
    public const int SOL_SOCKET = 1;
    public const int SOL_UDP = 17;
    public const int IPPROTO_IP = 0;
    public const int IPPROTO_IPV6 = 41;

    // include/uapi/asm-generic/socket.h
    public const int SO_SNDBUF = 7;
    public const int SO_RCVBUF = 8;
    public const int SO_RCVTIMEO = 20;
    public const int SO_REUSEPORT = 15;
    public const int SO_SNDBUFFORCE = 32;
    public const int SO_RCVBUFFORCE = 33;
    public const int SO_RXQ_OVFL = 40;
    public const int SO_BUSY_POLL = 46;

    /// <summary>getsockopt: the socket's memory counters, an array of SK_MEMINFO_VARS uint32 (include/uapi/linux/sock_diag.h).</summary>
    public const int SO_MEMINFO = 55;

    /// <summary>Index of sk_drops in the SO_MEMINFO array.</summary>
    public const int SK_MEMINFO_DROPS = 8;

    /// <summary>Length of the SO_MEMINFO array on kernels since 4.6; an older kernel writes fewer and says so in the length.</summary>
    public const int SK_MEMINFO_VARS = 9;

    // include/uapi/linux/udp.h
    public const int UDP_SEGMENT = 103;
    public const int UDP_GRO = 104;

    // include/uapi/linux/in.h
    public const int IP_TOS = 1;
    public const int IP_PKTINFO = 8;
    public const int IP_MTU_DISCOVER = 10;
    public const int IP_RECVERR = 11;
    public const int IP_RECVTOS = 13;
    public const int IP_MTU = 14;
    public const int IP_BIND_ADDRESS_NO_PORT = 24;
    public const int IP_PMTUDISC_DONT = 0;
    public const int IP_PMTUDISC_DO = 2;
    public const int IP_PMTUDISC_PROBE = 3;

    // include/uapi/linux/in6.h
    public const int IPV6_MTU = 24;
    public const int IPV6_MTU_DISCOVER = 23;
    public const int IPV6_RECVERR = 25;
    public const int IPV6_V6ONLY = 26;
    public const int IPV6_RECVPKTINFO = 49;
    public const int IPV6_PKTINFO = 50;
    public const int IPV6_DONTFRAG = 62;
    public const int IPV6_RECVTCLASS = 66;
    public const int IPV6_TCLASS = 67;

    // include/uapi/linux/sockios.h: SIOCOUTQ is TIOCOUTQ (asm-generic/ioctls.h, x86-64 and arm64 alike)
    public const nuint SIOCOUTQ = 0x5411;

    // include/linux/socket.h
    public const int MSG_PEEK = 2;
    public const int MSG_CTRUNC = 8;
    public const int MSG_TRUNC = 32;
    public const int MSG_DONTWAIT = 64;
    public const int MSG_ERRQUEUE = 8192;
    public const int MSG_NOSIGNAL = 16384;
    public const int MSG_WAITFORONE = 65536;

    // fcntl(2): include/uapi/asm-generic/fcntl.h
    public const int F_GETFL = 3;
    public const int O_NONBLOCK = 0x800;

    // shutdown(2): glibc's bits/socket.h (inet_shutdown in net/ipv4/af_inet.c takes them as how + 1)
    public const int SHUT_RD = 0;
    public const int SHUT_RDWR = 2;

    // sizeof(struct sockaddr_in) (include/uapi/linux/in.h) and sockaddr_in6 (include/uapi/linux/in6.h)
    public const int SizeOfSockaddrIn = 16;
    public const int SizeOfSockaddrIn6 = 28;
}
