using System.Net.Sockets;
using System.Runtime.Versioning;

namespace Salvo.Tunnel.Pal;

/// <summary>
/// A Unix stream socket only root can use, as wireguard-go's ipc/uapi_unix.go makes /var/run/wireguard/NAME.sock:
/// the directory 0755, the socket 0600, a leftover socket file replaced only when connecting to it fails. Unlike
/// wireguard-go, a directory that is a symbolic link is refused and one that group or others may write is set back
/// to 0755 first: the socket's mode is set by path after bind, and in a directory others can write, someone could
/// swap the socket for a link in between and have root change the mode of any file.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class OwnerOnlyUnixSocket
{
    /// <summary>Connections queued before accept: wg opens one at a time, wg-quick a few in a row.</summary>
    private const int Backlog = 16;

    private const UnixFileMode DirectoryMode = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
        | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute;

    public static Socket Listen(string path)
    {
        var directory = Path.GetDirectoryName(path);
        if (!string.IsNullOrEmpty(directory))
        {
            SecureDirectory(directory);
        }

        if (File.Exists(path))
        {
            if (Answers(path))
            {
                throw new IOException($"Control socket '{path}' is in use by another process.");
            }

            File.Delete(path);
        }

        var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            socket.Bind(new UnixDomainSocketEndPoint(path));

            // Between bind and chmod the file has the umask's mode (0755 with the usual 022): connecting needs write
            // permission, which that mode gives no one but the owner, so the window opens nothing.
            File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite);
            socket.Listen(Backlog);
            return socket;
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    /// <summary>Creates the socket's directory 0755, or refuses a link there and takes write permission from group and others.</summary>
    private static void SecureDirectory(string directory)
    {
        if (!Directory.Exists(directory))
        {
            Directory.CreateDirectory(directory, DirectoryMode);
        }

        if (new DirectoryInfo(directory).LinkTarget is not null)
        {
            throw new IOException($"Control socket directory '{directory}' is a symbolic link; remove it, and it is made anew.");
        }

        var mode = File.GetUnixFileMode(directory);
        if ((mode & (UnixFileMode.GroupWrite | UnixFileMode.OtherWrite)) != 0)
        {
            File.SetUnixFileMode(directory, mode & ~(UnixFileMode.GroupWrite | UnixFileMode.OtherWrite));
        }
    }

    private static bool Answers(string path)
    {
        using var probe = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            probe.Connect(new UnixDomainSocketEndPoint(path));
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }
}
