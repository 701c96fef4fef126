namespace Salvo.Interop.Linux;

/// <summary>The errno values the datagram path acts on (x86-64 and arm64 share them; ../LINUX-FACTS).</summary>
internal enum Errno
{
    None = 0,
    EPERM = 1,
    EINTR = 4,
    EIO = 5,
    EBADF = 9,
    EAGAIN = 11,
    EACCES = 13,
    EFAULT = 14,
    EINVAL = 22,
    ENOTSOCK = 88,
    EDESTADDRREQ = 89,
    EMSGSIZE = 90,
    ENOPROTOOPT = 92,
    EOPNOTSUPP = 95,
    EAFNOSUPPORT = 97,
    EADDRNOTAVAIL = 99,
    ENETDOWN = 100,
    ENETUNREACH = 101,
    ENOBUFS = 105,
    ENOTCONN = 107,
    ECONNREFUSED = 111,
    EHOSTDOWN = 112,
    EHOSTUNREACH = 113,
}
