using System.Runtime.InteropServices;

namespace Salvo.Perf.Native;

/// <summary>statx(2): of the stat calls, the one whose struct has the same layout on every architecture.</summary>
internal static partial class Libc
{
    /// <summary>AT_EMPTY_PATH (include/uapi/linux/fcntl.h): with an empty path, statx describes the descriptor itself.</summary>
    public const int AtEmptyPath = 0x1000;

    /// <summary>STATX_TYPE | STATX_MODE (include/uapi/linux/stat.h): the file type and permission bits of stx_mode.</summary>
    public const uint StatxTypeAndMode = 0x1 | 0x2;

    /// <summary>S_IFMT, the file-type bits of a mode (include/uapi/linux/stat.h), octal 0170000.</summary>
    public const int FileTypeMask = 0xF000;

    /// <summary>S_IFREG, a regular file, octal 0100000.</summary>
    public const int RegularFile = 0x8000;

    /// <summary>struct statx, 256 bytes (0x100 in include/uapi/linux/stat.h); only stx_mask, stx_uid and stx_mode are read.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 256)]
    public struct Statx
    {
        /// <summary>stx_mask: which fields the kernel filled in.</summary>
        [FieldOffset(0)]
        public uint Mask;

        /// <summary>stx_uid: the owner, at 0x14 after mask, blksize, attributes and nlink.</summary>
        [FieldOffset(20)]
        public uint Uid;

        /// <summary>stx_mode: file type and permission bits, at 0x1c after mask, blksize, attributes, nlink, uid and gid.</summary>
        [FieldOffset(28)]
        public ushort Mode;
    }

    [LibraryImport(Library, EntryPoint = "statx", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int StatxOf(int directoryDescriptor, string path, int flags, uint mask, out Statx status);
}
