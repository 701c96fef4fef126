using System.Runtime.InteropServices;

namespace Salvo.Perf.Native;

/// <summary>execvp(3).</summary>
internal static partial class Libc
{
    /// <summary>
    /// Replaces this process's program with <paramref name="file"/> (looked up on PATH when it holds no '/'); returns
    /// -1 with errno set only when it could not, else never.
    /// </summary>
    /// <param name="file">The program.</param>
    /// <param name="arguments">Pointers to NUL-terminated UTF-8 strings, the program's name first, a zero last.</param>
    [LibraryImport(Library, EntryPoint = "execvp", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int ExecVp(string file, nint[] arguments);
}
