namespace Salvo.WireGuard.Tests;

/// <summary><c>up</c> warns, as wg-quick(8) does, when others may read the file that holds the private key.</summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class ConfigFileAccessTests : IDisposable
{
    private const UnixFileMode Owner = UnixFileMode.UserRead | UnixFileMode.UserWrite;
    private const UnixFileMode Open = Owner | UnixFileMode.GroupRead | UnixFileMode.OtherRead;
    private const UnixFileMode OpenFolder = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute |
        UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute;

    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-access-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [LinuxOnlyFact]
    public async Task Up_ConfigReadableByOthers_WarnsAsWgQuick()
    {
        File.SetUnixFileMode(_folder, OpenFolder);
        var config = Config("salvo0.conf", Open);

        var (_, _, error) = await Daemon.RunAsync("up", config);

        Assert.Contains($"Warning: `{config}' is world accessible\n", error, StringComparison.Ordinal);
    }

    [LinuxOnlyTheory]
    [InlineData(Owner, OpenFolder)]
    [InlineData(Open, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute)]
    public async Task Up_ConfigOrItsFolderClosedToOthers_NoWarning(UnixFileMode file, UnixFileMode folder)
    {
        File.SetUnixFileMode(_folder, folder);
        var config = Config("salvo0.conf", file);

        var (_, _, error) = await Daemon.RunAsync("up", config);

        Assert.DoesNotContain("world accessible", error, StringComparison.Ordinal);
        Assert.Contains("the file is empty", error, StringComparison.Ordinal);
    }

    /// <summary>An empty file: 'up' checks its access, then stops at once on its content, with nothing made.</summary>
    private string Config(string name, UnixFileMode mode)
    {
        var path = Path.Combine(_folder, name);
        File.WriteAllText(path, "# nothing\n");
        File.SetUnixFileMode(path, mode);
        return path;
    }
}
