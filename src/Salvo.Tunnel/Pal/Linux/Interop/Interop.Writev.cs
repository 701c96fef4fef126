using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the vectors it passes are valid for the length of the call.
internal static unsafe partial class Libc
{
    /// <summary>writev(2): on a TUN descriptor, one packet gathered from the vectors (its virtio_net_hdr and the packet).</summary>
    [LibraryImport(LibraryName, EntryPoint = "writev", SetLastError = true)]
    public static partial nint Writev(SafeHandle descriptor, IOVec* vectors, int count);
}
