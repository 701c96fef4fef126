namespace Salvo.Docs.Tests;

/// <summary>
/// A reader's machine as far as NuGet sees it: an empty project folder outside any folder with a nuget.config of the
/// tests, and an empty package cache (NUGET_PACKAGES), so that a restore finds only what the reader's own lines name.
/// Deleted on dispose.
/// </summary>
internal sealed class ReaderMachine : IDisposable
{
    public ReaderMachine()
    {
        Root = Directory.CreateTempSubdirectory("salvo-reader-").FullName;
        Project = Directory.CreateDirectory(Path.Combine(Root, "app")).FullName;
        Environment = new Dictionary<string, string> { ["NUGET_PACKAGES"] = Directory.CreateDirectory(Path.Combine(Root, "packages")).FullName };
    }

    public string Root { get; }

    /// <summary>The reader's project folder.</summary>
    public string Project { get; }

    /// <summary>What a child dotnet command needs: the empty package cache.</summary>
    public IReadOnlyDictionary<string, string> Environment { get; }

    public void Dispose() => Directory.Delete(Root, recursive: true);
}
