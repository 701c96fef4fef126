using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

/// <summary>The C library the Linux backend calls; one import per file beside this one.</summary>
internal static partial class Libc
{
    // "libc" alone resolves to the libc.so linker script on glibc, which dlopen rejects;
    // libc.so.6 is the runtime name on glibc (x86-64 and arm64).
    public const string LibraryName = "libc.so.6";

    /// <summary>The errno of the last import called with SetLastError, as a typed value.</summary>
    public static Errno LastErrno => (Errno)Marshal.GetLastPInvokeError();
}
