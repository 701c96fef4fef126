using System.Runtime.InteropServices;

namespace Salvo.Perf.Native;

/// <summary>
/// The libc calls of a NETLINK_ROUTE socket, with which <c>salvo tunnel up</c> installs its routes: socket,
/// setsockopt, if_nametoindex and if_indextoname here; send, recv and close are <see cref="Epoll"/>'s.
/// </summary>
internal static partial class Netlink
{
    private const string Library = "libc.so.6";

    /// <summary>AF_NETLINK (include/linux/socket.h).</summary>
    public const int AddressFamily = 16;

    /// <summary>SOCK_RAW | SOCK_CLOEXEC.</summary>
    public const int RawCloseOnExec = 3 | 0x80000;

    /// <summary>NETLINK_ROUTE (include/uapi/linux/netlink.h).</summary>
    public const int Route = 0;

    /// <summary>SOL_SOCKET.</summary>
    public const int SocketLevel = 1;

    /// <summary>SO_RCVBUFFORCE: past net.core.rmem_max, allowed to root (CAP_NET_ADMIN), which adding routes needs anyway.</summary>
    public const int ReceiveBufferForce = 33;

    /// <summary>SOL_NETLINK.</summary>
    public const int NetlinkLevel = 270;

    /// <summary>NETLINK_CAP_ACK: an acknowledgement carries the request's header only, not its whole body.</summary>
    public const int CapAck = 10;

    /// <summary>NETLINK_EXT_ACK: an error carries the kernel's message text (NLMSGERR_ATTR_MSG).</summary>
    public const int ExtendedAck = 11;

    /// <summary>MSG_DONTWAIT.</summary>
    public const int DontWait = 0x40;

    [LibraryImport(Library, EntryPoint = "socket", SetLastError = true)]
    public static partial int Socket(int domain, int type, int protocol);

    [LibraryImport(Library, EntryPoint = "setsockopt", SetLastError = true)]
    public static partial int SetOption(int fd, int level, int name, in int value, uint length);

    /// <summary>IF_NAMESIZE (include/uapi/linux/if.h): an interface name and its NUL.</summary>
    public const int InterfaceNameSize = 16;

    /// <summary>Writes the name of interface <paramref name="index"/> into <paramref name="name"/> (IF_NAMESIZE bytes); null when there is none.</summary>
    // Safety: a declaration; the caller passes IF_NAMESIZE writable bytes that outlive the call.
    [LibraryImport(Library, EntryPoint = "if_indextoname", SetLastError = true)]
    public static unsafe partial byte* InterfaceName(uint index, byte* name);

    [LibraryImport(Library, EntryPoint = "if_nametoindex", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial uint InterfaceIndex(string name);
}
