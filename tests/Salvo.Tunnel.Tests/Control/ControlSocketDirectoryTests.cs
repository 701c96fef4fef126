using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>
/// The control socket's directory: the socket's mode is set by path after bind, so a directory others may write
/// would let them swap the socket for a link in between; such a directory is tightened, and a link is refused.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class ControlSocketDirectoryTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("salvo-uapi-dir-").FullName;

    public void Dispose() => Directory.Delete(_root, recursive: true);

    [RequiresFact(Requirement.Linux)]
    public void Start_DirectoryWritableByOthers_IsSetBackTo0755()
    {
        var directory = Path.Combine(_root, "wireguard");
        Directory.CreateDirectory(directory);
        File.SetUnixFileMode(directory, (UnixFileMode)0b111_111_111);
        using var device = TunnelDevice.Start(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey() }, new MemoryTun("uapidir"));

        using (WireGuardControlSocket.Start(device, Path.Combine(directory, "uapidir.sock")))
        {
            Assert.Equal((UnixFileMode)0b111_101_101, File.GetUnixFileMode(directory));
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(Path.Combine(directory, "uapidir.sock")));
        }
    }

    [RequiresFact(Requirement.Linux)]
    public void Start_DirectoryIsALink_IsRefusedAndTheTargetUntouched()
    {
        var target = Path.Combine(_root, "elsewhere");
        Directory.CreateDirectory(target);
        File.SetUnixFileMode(target, (UnixFileMode)0b111_111_111);
        var link = Path.Combine(_root, "wireguard");
        Directory.CreateSymbolicLink(link, target);
        using var device = TunnelDevice.Start(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey() }, new MemoryTun("uapilink"));

        var refused = Assert.Throws<IOException>(() => WireGuardControlSocket.Start(device, Path.Combine(link, "uapilink.sock")));

        Assert.Contains("symbolic link", refused.Message, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(target));
        Assert.Equal((UnixFileMode)0b111_111_111, File.GetUnixFileMode(target));
    }
}
