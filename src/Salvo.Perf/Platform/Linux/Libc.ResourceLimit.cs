using System.Runtime.InteropServices;

namespace Salvo.Perf.Native;

/// <summary>getrlimit(2) and setrlimit(2).</summary>
internal static partial class Libc
{
    /// <summary>RLIMIT_NOFILE (include/uapi/asm-generic/resource.h): the open-file limit.</summary>
    public const int RlimitNoFile = 7;

    /// <summary>struct rlimit: two rlim_t (unsigned long) values.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Rlimit
    {
        public ulong Soft;
        public ulong Hard;
    }

    [LibraryImport(Library, EntryPoint = "getrlimit", SetLastError = true)]
    public static partial int GetRlimit(int resource, ref Rlimit limit);

    [LibraryImport(Library, EntryPoint = "setrlimit", SetLastError = true)]
    public static partial int SetRlimit(int resource, ref Rlimit limit);
}
