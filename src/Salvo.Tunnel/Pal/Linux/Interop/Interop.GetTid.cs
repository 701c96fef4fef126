using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>gettid(2): the calling thread's id (glibc 2.30 and later); never fails.</summary>
    [LibraryImport(LibraryName, EntryPoint = "gettid")]
    public static partial int GetTid();
}
