using System.Runtime.InteropServices;
using System.Security.Cryptography;



namespace Salvo.WireGuard.Linux;

/// <summary>
/// The folder 'wireguard-salvo up' keeps its status files in (/run/salvo-tunnel), held open by descriptor. Made 0755 and
/// its files 0644 whatever the umask: a status holds public keys, endpoints and counters, no secret, and 'show' may
/// run as any user. Every file is written to a new name made with O_CREAT | O_EXCL | O_NOFOLLOW and renamed over the
/// old one: a link planted at a name 'up' writes (as NAME.next once was, which made root's 'up' overwrite the link's
/// target) is never followed. A folder that is a link, not a directory, or owned by another user is refused, since
/// whoever owns it could swap the files under the reader; one of ours with other modes is set back to 0755.
/// </summary>
internal sealed class StatusDirectory : IDisposable
{
    /// <summary>rwxr-xr-x: only the owner (root, running 'up') adds or removes files.</summary>
    public const uint DirectoryMode = 0x1ED;

    /// <summary>rw-r--r--.</summary>
    public const uint FileMode = 0x1A4;

    /// <summary>The first character of a file still being written; 'show' skips such names.</summary>
    public const char TemporaryMark = '.';

    private const int PermissionBits = 0xFFF;

    /// <summary>AT_FDCWD: a path relative to the working directory (include/uapi/linux/fcntl.h).</summary>
    private const int AtWorkingDirectory = -100;

    /// <summary>AT_SYMLINK_NOFOLLOW: describe a link, not what it points to.</summary>
    private const int AtSymbolicLinkNoFollow = 0x100;

    /// <summary>S_IFLNK, octal 0120000.</summary>
    private const int SymbolicLink = 0xA000;
    private readonly int _fd;

    private StatusDirectory(string path, int fd)
    {
        Path = path;
        _fd = fd;
    }

    /// <summary>The folder's path.</summary>
    public string Path { get; }

    /// <summary>Makes <paramref name="path"/> if it is missing, opens it without following a link, and checks its owner and mode.</summary>
    public static StatusDirectory Open(string path)
    {
        if (Libc.MakeDirectory(path, DirectoryMode) != 0 && Marshal.GetLastPInvokeError() != Libc.ErrorExists)
        {
            throw Failure(path, "cannot be made");
        }

        var fd = Libc.Open(path, Libc.DirectoryOnly | Libc.NoFollow | Libc.OpenCloseOnExec, 0);
        if (fd < 0)
        {
            // A link to a directory fails O_DIRECTORY (ENOTDIR) before O_NOFOLLOW: look at the name itself to say which.
            var errno = Marshal.GetLastPInvokeError();
            var isLink = Libc.StatxOf(AtWorkingDirectory, path, AtSymbolicLinkNoFollow, Libc.StatxTypeAndMode, out var entry) == 0
                && (entry.Mode & Libc.FileTypeMask) == SymbolicLink;
            throw errno is Libc.ErrorLoop or Libc.ErrorNotDirectory
                ? new DaemonException($"up: status folder {path} is {(isLink ? "a symbolic link" : "not a directory")}; wireguard-salvo writes only into a directory of its own there: remove it")
                : Failure(path, "cannot be opened");
        }

        try
        {
            if (Libc.StatxOf(fd, string.Empty, Libc.AtEmptyPath, Libc.StatxTypeAndMode | Libc.StatxUid, out var status) != 0)
            {
                throw Failure(path, "cannot be examined");
            }

            var owner = Libc.EffectiveUserId();
            if (status.Uid != owner)
            {
                throw new DaemonException($"up: status folder {path} belongs to user {status.Uid}, not to this one ({owner}), who could replace its files: remove it");
            }

            // Ours but made under another umask (0777 under umask 000): set back, so no other user can add files.
            if ((status.Mode & PermissionBits) != DirectoryMode && Libc.ChangeMode(fd, DirectoryMode) != 0)
            {
                throw Failure(path, "cannot be set to mode 0755");
            }

            return new StatusDirectory(path, fd);
        }
        catch
        {
            Libc.Close(fd);
            throw;
        }
    }

    /// <summary>
    /// Replaces file <paramref name="name"/> with <paramref name="contents"/> at once (a rename, so a reader never sees
    /// half of it); null when written, else why not. <paramref name="temporaryName"/> is for tests: a fresh random name otherwise.
    /// </summary>
    public unsafe string? Write(string name, ReadOnlySpan<byte> contents, string? temporaryName = null)
    {
        var temporary = temporaryName ?? $"{TemporaryMark}{name}.{Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(8))}";
        var fd = Libc.OpenAt(_fd, temporary, Libc.WriteOnly | Libc.Create | Libc.Exclusive | Libc.NoFollow | Libc.OpenCloseOnExec, FileMode);
        if (fd < 0)
        {
            return $"{System.IO.Path.Combine(Path, temporary)}: {LastError()}";
        }

        string? problem = null;
        try
        {
            // The mode given to open is cut by the umask; set it whole.
            if (Libc.ChangeMode(fd, FileMode) != 0)
            {
                problem = LastError();
            }

            // Safety: contents is pinned for the calls, and each writes at most what is left of it.
            fixed (byte* bytes = contents)
            {
                for (var done = 0; problem is null && done < contents.Length;)
                {
                    var written = Libc.Write(fd, bytes + done, (nuint)(contents.Length - done));
                    if (written <= 0)
                    {
                        problem = LastError();
                    }

                    done += (int)Math.Max(written, 0);
                }
            }
        }
        finally
        {
            Libc.Close(fd);
        }

        if (problem is null && Libc.RenameAt(_fd, temporary, _fd, name) != 0)
        {
            problem = LastError();
        }

        if (problem is not null)
        {
            Libc.UnlinkAt(_fd, temporary, 0);
            return $"{System.IO.Path.Combine(Path, name)}: {problem}";
        }

        return null;
    }

    /// <summary>Removes file <paramref name="name"/> (a link is removed itself, not its target); a missing one is fine.</summary>
    public void Delete(string name) => Libc.UnlinkAt(_fd, name, 0);

    /// <summary>Sets file <paramref name="name"/>'s times to now, not following a link; false when that failed (it is gone, say).</summary>
    // Safety: null times is utimensat's "now" for both; nothing is read or written through a pointer.
    public unsafe bool Touch(string name) => Libc.SetTimesAt(_fd, name, null, Libc.SymlinkNoFollow) == 0;

    public void Dispose() => Libc.Close(_fd);

    private static DaemonException Failure(string path, string what) => new($"up: status folder {path} {what}: {LastError()}");

    private static string LastError() => Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError());
}
