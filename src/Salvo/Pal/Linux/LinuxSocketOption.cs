using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: the option value is a local int, passed by address with sizeof(int) as its length to one synchronous
// setsockopt/getsockopt; getsockopt writes at most that length.
/// <summary>Integer socket options by raw level and name, as errno rather than exceptions.</summary>
[SupportedOSPlatform("linux")]
internal static unsafe class LinuxSocketOption
{
    public static Errno TrySet(SafeSocketHandle handle, int level, int name, int value) =>
        Libc.SetSockOpt(handle, level, name, &value, sizeof(int)) == 0 ? Errno.None : Libc.LastErrno;

    public static Errno TryGet(SafeSocketHandle handle, int level, int name, out int value)
    {
        var result = 0;
        var length = (uint)sizeof(int);
        var status = Libc.GetSockOpt(handle, level, name, &result, &length);
        value = result;
        return status == 0 ? Errno.None : Libc.LastErrno;
    }
}
