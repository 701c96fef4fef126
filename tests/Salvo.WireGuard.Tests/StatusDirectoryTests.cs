using System.Text;
using Salvo.WireGuard.Linux;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// The status folder of <c>wireguard-salvo up</c>: files written without following a link planted at any name it uses,
/// modes set whole, and a folder that is a link, not a directory, or someone else's refused.
/// </summary>
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public sealed class StatusDirectoryTests : IDisposable
{
    private const string Untouched = "the link's target, which salvo must not write";
    private readonly string _root = Directory.CreateTempSubdirectory("salvo-status-").FullName;

    public StatusDirectoryTests() => Folder = Path.Combine(_root, "status");

    private string Folder { get; }

    private string Target => Path.Combine(_root, "target");

    public void Dispose() => Directory.Delete(_root, recursive: true);

    /// <summary>A large tunnel's status is rewritten seldom and only its time refreshed between: the file stays current to 'show'.</summary>
    [RequiresFact(Requirement.Linux)]
    public void Touch_OldFile_IsCurrentAgain_AndAMissingOneIsSaid()
    {
        using var directory = StatusDirectory.Open(Folder);
        Assert.Null(directory.Write("salvo0", "{}"u8));
        var file = Path.Combine(Folder, "salvo0");
        File.SetLastWriteTimeUtc(file, DateTime.UtcNow - TimeSpan.FromMinutes(10));

        Assert.True(directory.Touch("salvo0"));

        Assert.InRange(DateTime.UtcNow - File.GetLastWriteTimeUtc(file), TimeSpan.Zero, TimeSpan.FromMinutes(1));
        Assert.Equal("{}", File.ReadAllText(file));
        Assert.False(directory.Touch("absent"));
    }

    /// <summary>The name the old code wrote before its rename: a link there made it overwrite the target.</summary>
    [RequiresFact(Requirement.Linux)]
    public void Write_LinkAtTheOldNextName_LeavesTheTargetAndWritesTheFile()
    {
        using var directory = Planted("salvo0.next");

        Assert.Null(directory.Write("salvo0", "{}"u8));

        Assert.Equal(Untouched, File.ReadAllText(Target));
        AssertRegularFile(Path.Combine(Folder, "salvo0"), "{}", StatusDirectory.FileMode);
    }

    [RequiresFact(Requirement.Linux)]
    public void Write_LinkAtTheTemporaryName_IsRefusedAndTheTargetUntouched()
    {
        using var directory = Planted(".salvo0.planted");

        var problem = directory.Write("salvo0", "{}"u8, temporaryName: ".salvo0.planted");

        Assert.Contains("File exists", problem, StringComparison.Ordinal);
        Assert.Equal(Untouched, File.ReadAllText(Target));
        Assert.False(File.Exists(Path.Combine(Folder, "salvo0")));
    }

    /// <summary>The rename replaces the link itself; the file that was linked to keeps its bytes.</summary>
    [RequiresFact(Requirement.Linux)]
    public void Write_LinkAtTheFinalName_ReplacesTheLinkNotItsTarget()
    {
        using var directory = Planted("salvo0");

        Assert.Null(directory.Write("salvo0", "{\"a\":1}"u8));

        Assert.Equal(Untouched, File.ReadAllText(Target));
        AssertRegularFile(Path.Combine(Folder, "salvo0"), "{\"a\":1}", StatusDirectory.FileMode);
        directory.Delete("salvo0");
        Assert.False(File.Exists(Path.Combine(Folder, "salvo0")));
    }

    [RequiresFact(Requirement.Linux)]
    public void Open_Missing_MakesItWithMode0755()
    {
        using var directory = StatusDirectory.Open(Folder);

        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute | UnixFileMode.GroupRead | UnixFileMode.GroupExecute
            | UnixFileMode.OtherRead | UnixFileMode.OtherExecute, File.GetUnixFileMode(Folder));
    }

    /// <summary>Made under umask 000, a folder of ours is 0777: anyone could plant files in it. It is set back.</summary>
    [RequiresFact(Requirement.Linux)]
    public void Open_OursWritableByAll_IsSetBackTo0755()
    {
        Directory.CreateDirectory(Folder);
        File.SetUnixFileMode(Folder, (UnixFileMode)0x1FF);

        using var directory = StatusDirectory.Open(Folder);

        Assert.Equal((UnixFileMode)StatusDirectory.DirectoryMode, File.GetUnixFileMode(Folder));
    }

    [RequiresFact(Requirement.Linux)]
    public void Open_ALink_IsRefusedAndNothingWrittenThrough()
    {
        var elsewhere = Directory.CreateDirectory(Path.Combine(_root, "elsewhere")).FullName;
        File.CreateSymbolicLink(Folder, elsewhere);

        var error = Assert.Throws<DaemonException>(() => StatusDirectory.Open(Folder));

        Assert.Equal($"up: status folder {Folder} is a symbolic link; wireguard-salvo writes only into a directory of its own there: remove it", error.Message);
        Assert.Empty(Directory.GetFileSystemEntries(elsewhere));
    }

    [RequiresFact(Requirement.Linux)]
    public void Open_AFile_IsRefused()
    {
        File.WriteAllText(Folder, Untouched);

        var error = Assert.Throws<DaemonException>(() => StatusDirectory.Open(Folder));

        Assert.Contains("is not a directory", error.Message, StringComparison.Ordinal);
        Assert.Equal(Untouched, File.ReadAllText(Folder));
    }

    /// <summary>Root's 'up' and a folder a local user made: the user could swap the files, so it is not used. Needs root to chown.</summary>
    [RequiresFact(Requirement.Netns)]
    public void Open_AnotherUsersFolder_IsRefused()
    {
        Directory.CreateDirectory(Folder);
        using (var chown = System.Diagnostics.Process.Start("chown", ["65534", Folder]))
        {
            Assert.True(chown.WaitForExit(10_000) && chown.ExitCode == 0, "chown failed");
        }

        var error = Assert.Throws<DaemonException>(() => StatusDirectory.Open(Folder));

        Assert.Contains("belongs to user 65534", error.Message, StringComparison.Ordinal);
    }

    private StatusDirectory Planted(string linkName)
    {
        File.WriteAllText(Target, Untouched);
        var directory = StatusDirectory.Open(Folder);
        File.CreateSymbolicLink(Path.Combine(Folder, linkName), Target);
        return directory;
    }

    private static void AssertRegularFile(string path, string contents, uint mode)
    {
        Assert.Null(new FileInfo(path).LinkTarget);
        Assert.Equal(contents, File.ReadAllText(path, Encoding.UTF8));
        Assert.Equal((UnixFileMode)mode, File.GetUnixFileMode(path));
    }
}
