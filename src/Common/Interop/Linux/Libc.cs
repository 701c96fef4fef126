using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

/// <summary>
/// The C library the Linux code of the library and of the tunnel calls; one import per file. The imports both need
/// (close, ioctl, poll) are here in src/Common, compiled into each assembly; the others live in its own
/// Pal/Linux/Interop.
/// </summary>
/// <remarks>
/// Imports on a socket take its <see cref="SafeHandle"/>: the generated marshaller holds a reference for the length of
/// the call, so a concurrent dispose can neither close the descriptor under the system call nor let its number be
/// reused by another open. The handle goes over as a pointer-sized value where C declares <c>int fd</c>; the x86-64
/// and AArch64 Linux calling conventions pass an <c>int</c> in the low 32 bits of the same register.
/// </remarks>
internal static partial class Libc
{
    // "libc" alone resolves to the libc.so linker script on glibc, which dlopen rejects;
    // libc.so.6 is the runtime name on glibc (x86-64 and arm64).
    public const string LibraryName = "libc.so.6";

    /// <summary>The errno of the last import called with SetLastError, as a typed value.</summary>
    public static Errno LastErrno => (Errno)Marshal.GetLastPInvokeError();
}
