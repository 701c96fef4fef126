using System.Runtime.InteropServices;

namespace Salvo.WireGuard.Linux;

/// <summary>
/// The file calls of the status folder (<c>/run/salvo-tunnel</c>): a directory opened once without following a link,
/// and files made in it relative to that descriptor, so no path is looked up again after it was checked.
/// </summary>
internal static partial class Libc
{
    /// <summary>O_WRONLY.</summary>
    public const int WriteOnly = 0x1;

    /// <summary>O_CREAT.</summary>
    public const int Create = 0x40;

    /// <summary>O_EXCL: with O_CREAT, fails with EEXIST when the name exists, a link included, which it does not follow.</summary>
    public const int Exclusive = 0x80;

    /// <summary>O_CLOEXEC.</summary>
    public const int OpenCloseOnExec = 0x80000;

    /// <summary>EEXIST.</summary>
    public const int ErrorExists = 17;

    /// <summary>ELOOP: O_NOFOLLOW met a symbolic link.</summary>
    public const int ErrorLoop = 40;

    /// <summary>ENOTDIR: O_DIRECTORY met something other than a directory.</summary>
    public const int ErrorNotDirectory = 20;

    /// <summary>STATX_UID (include/uapi/linux/stat.h).</summary>
    public const uint StatxUid = 0x8;

    /// <summary>S_IFDIR, a directory, octal 040000.</summary>
    public const int DirectoryFile = 0x4000;

    private static bool IsArm => RuntimeInformation.ProcessArchitecture is Architecture.Arm or Architecture.Arm64;

    /// <summary>O_DIRECTORY: 0200000 octal in include/uapi/asm-generic/fcntl.h (x86), 040000 on arm (arch/arm64/include/uapi/asm/fcntl.h).</summary>
    public static int DirectoryOnly => IsArm ? 0x4000 : 0x10000;

    /// <summary>O_NOFOLLOW: 0400000 octal in asm-generic (x86), 0100000 on arm.</summary>
    public static int NoFollow => IsArm ? 0x8000 : 0x20000;

    [LibraryImport(Library, EntryPoint = "mkdir", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int MakeDirectory(string path, uint mode);

    [LibraryImport(Library, EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Open(string path, int flags, uint mode);

    [LibraryImport(Library, EntryPoint = "openat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int OpenAt(int directoryDescriptor, string path, int flags, uint mode);

    [LibraryImport(Library, EntryPoint = "fchmod", SetLastError = true)]
    public static partial int ChangeMode(int fd, uint mode);

    // Safety: a declaration; the caller passes a pinned buffer of at least length bytes that outlives the call.
    [LibraryImport(Library, EntryPoint = "write", SetLastError = true)]
    public static unsafe partial nint Write(int fd, byte* buffer, nuint length);

    [LibraryImport(Library, EntryPoint = "renameat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int RenameAt(int fromDirectory, string from, int toDirectory, string to);

    [LibraryImport(Library, EntryPoint = "unlinkat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int UnlinkAt(int directoryDescriptor, string path, int flags);

    /// <summary>AT_SYMLINK_NOFOLLOW in include/uapi/linux/fcntl.h (the same on every architecture).</summary>
    public const int SymlinkNoFollow = 0x100;

    // Safety: a declaration; times is null (both times become now) or two timespecs that outlive the call.
    [LibraryImport(Library, EntryPoint = "utimensat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static unsafe partial int SetTimesAt(int directoryDescriptor, string path, void* times, int flags);

    [LibraryImport(Library, EntryPoint = "geteuid")]
    public static partial uint EffectiveUserId();
}
