using System.Net.Sockets;

namespace Salvo.Interop.Linux;

/// <summary>Maps errno to the <see cref="SocketError"/> callers of System.Net.Sockets already know.</summary>
internal static class ErrnoExtensions
{
    public static SocketError ToSocketError(this Errno errno) => errno switch
    {
        Errno.None => SocketError.Success,
        Errno.EINTR => SocketError.Interrupted,
        Errno.EAGAIN => SocketError.WouldBlock,
        Errno.EACCES or Errno.EPERM => SocketError.AccessDenied,
        Errno.EFAULT => SocketError.Fault,
        Errno.EINVAL => SocketError.InvalidArgument,
        Errno.EBADF or Errno.ENOTSOCK => SocketError.NotSocket,
        Errno.EDESTADDRREQ => SocketError.DestinationAddressRequired,
        Errno.EMSGSIZE => SocketError.MessageSize,
        Errno.ENOPROTOOPT => SocketError.ProtocolOption,
        Errno.EOPNOTSUPP => SocketError.OperationNotSupported,
        Errno.EAFNOSUPPORT => SocketError.AddressFamilyNotSupported,
        Errno.EADDRNOTAVAIL => SocketError.AddressNotAvailable,
        Errno.ENETDOWN => SocketError.NetworkDown,
        Errno.ENETUNREACH => SocketError.NetworkUnreachable,
        Errno.ENOBUFS => SocketError.NoBufferSpaceAvailable,
        Errno.ENOTCONN => SocketError.NotConnected,
        Errno.ECONNREFUSED => SocketError.ConnectionRefused,
        Errno.EHOSTDOWN => SocketError.HostDown,
        Errno.EHOSTUNREACH => SocketError.HostUnreachable,
        _ => SocketError.SocketError,
    };
}
