using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

internal static partial class Libc
{
    /// <summary>PRIO_PROCESS from sys/resource.h: with a thread id as <c>who</c>, Linux sets that one thread's nice value.</summary>
    public const int PrioProcess = 0;

    /// <summary>setpriority(2): 0, or -1 with errno set (EACCES/EPERM below the current value without CAP_SYS_NICE).</summary>
    [LibraryImport(LibraryName, EntryPoint = "setpriority", SetLastError = true)]
    public static partial int SetPriority(int which, uint who, int niceness);
}
