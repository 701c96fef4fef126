using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>
    /// syscall(2): the system calls glibc has no wrapper for (io_uring's). Declared with six fixed arguments: the
    /// x86-64 and AArch64 conventions pass the first integer arguments of a variadic call in the same registers.
    /// </summary>
    [LibraryImport(LibraryName, EntryPoint = "syscall", SetLastError = true)]
    public static partial long Syscall(long number, nint arg1, nint arg2, nint arg3, nint arg4, nint arg5, nint arg6);
}
