namespace Salvo.Interop.Linux;

/// <summary>
/// The errno values the datagram path and the TUN device act on, from the kernel's include/uapi/asm-generic/errno-base.h
/// (1 to 34) and include/uapi/asm-generic/errno.h (35 on), which x86-64 and arm64 both use; meanings in
/// errno(3). LinuxAbiTests checks them against this machine's libc.
/// </summary>
internal enum Errno
{
    None = 0,
    EPERM = 1,
    ENOENT = 2,
    EINTR = 4,
    EIO = 5,
    EBADF = 9,
    EAGAIN = 11,
    EACCES = 13,
    EFAULT = 14,
    EBUSY = 16,
    EEXIST = 17,
    ENODEV = 19,
    EINVAL = 22,
    ENOSYS = 38,
    ETIME = 62,
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
    ECANCELED = 125,
}
