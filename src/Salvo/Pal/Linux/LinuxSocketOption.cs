using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>Integer socket options by raw level and name, as errno rather than exceptions.</summary>
[SupportedOSPlatform("linux")]
internal static unsafe class LinuxSocketOption
{
    public static Errno TrySet(SafeSocketHandle handle, int level, int name, int value)
    {
        var added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            return Libc.SetSockOpt((int)handle.DangerousGetHandle(), level, name, &value, sizeof(int)) == 0 ? Errno.None : Libc.LastErrno;
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    public static Errno TryGet(SafeSocketHandle handle, int level, int name, out int value)
    {
        var added = false;
        var result = 0;
        var length = (uint)sizeof(int);
        try
        {
            handle.DangerousAddRef(ref added);
            var status = Libc.GetSockOpt((int)handle.DangerousGetHandle(), level, name, &result, &length);
            value = result;
            return status == 0 ? Errno.None : Libc.LastErrno;
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }
}
