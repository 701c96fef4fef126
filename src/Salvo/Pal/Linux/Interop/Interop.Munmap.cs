using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; the caller unmaps only a mapping it made, with the length it made it with.
internal static unsafe partial class Libc
{
    /// <summary>munmap(2).</summary>
    [LibraryImport(LibraryName, EntryPoint = "munmap", SetLastError = true)]
    public static partial int Munmap(void* address, nuint length);
}
