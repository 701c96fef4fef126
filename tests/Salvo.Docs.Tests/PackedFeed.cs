using System.Xml.Linq;
using Salvo.Tests.Architecture;

namespace Salvo.Docs.Tests;

/// <summary>
/// The solution's packages, packed from the build the tests run on into a folder of their own, with a nuget.config
/// and an empty packages folder for installing them: nothing of this version reaches the machine's NuGet cache.
/// </summary>
public sealed class PackedFeed : IDisposable
{
    /// <summary>The packages: the three libraries and the salvo tool.</summary>
    public static readonly string[] Ids = ["Salvo", "Salvo.Hosting", "Salvo.Tunnel", "Salvo.Perf"];

    public PackedFeed()
    {
        Version = VersionPrefix(Path.Combine(SourceTree.RepositoryRoot(), "Directory.Build.props"));
        Root = Directory.CreateTempSubdirectory("salvo-packages-").FullName;
        Feed = Path.Combine(Root, "feed");
        (PackExitCode, PackOutput) = DotnetCli.Run(
            SourceTree.RepositoryRoot(),
            ["pack", "Salvo.slnx", "-c", DotnetCli.Configuration, "--no-build", "-o", Feed]);
        File.WriteAllText(Path.Combine(Root, "nuget.config"), NuGetConfig());
    }

    /// <summary>The folder holding everything; deleted on dispose.</summary>
    public string Root { get; }

    /// <summary>The folder the packages are packed into, a package source.</summary>
    public string Feed { get; }

    /// <summary>The solution's version, Directory.Build.props's VersionPrefix.</summary>
    public string Version { get; }

    public int PackExitCode { get; }

    public string PackOutput { get; }

    /// <summary>
    /// What a child dotnet command needs to restore from the feed: the nuget.config (the feed for Salvo's packages,
    /// the usual source for the rest) and a packages folder of its own.
    /// </summary>
    public Dictionary<string, string> Environment => new() { ["NUGET_PACKAGES"] = Path.Combine(Root, "packages") };

    /// <summary>The nuget.config beside the feed.</summary>
    public string ConfigFile => Path.Combine(Root, "nuget.config");

    public void Dispose() => Directory.Delete(Root, recursive: true);

    private static string VersionPrefix(string props) =>
        XDocument.Load(props).Descendants("VersionPrefix").SingleOrDefault()?.Value
            ?? throw new InvalidOperationException($"{props} has no VersionPrefix: the solution's version has no one place.");

    /// <summary>
    /// The feed for Salvo's packages only (a package of the same name elsewhere is never taken), nuget.org for the
    /// rest, found first in the machine's packages folder as a fallback so that a build already restored needs no
    /// download.
    /// </summary>
    private string NuGetConfig()
    {
        var cache = System.Environment.GetEnvironmentVariable("NUGET_PACKAGES")
            ?? Path.Combine(System.Environment.GetFolderPath(System.Environment.SpecialFolder.UserProfile), ".nuget", "packages");
        return new XDocument(
            new XElement(
                "configuration",
                new XElement(
                    "packageSources",
                    new XElement("clear"),
                    new XElement("add", new XAttribute("key", "feed"), new XAttribute("value", Feed)),
                    new XElement("add", new XAttribute("key", "nuget.org"), new XAttribute("value", "https://api.nuget.org/v3/index.json"))),
                new XElement(
                    "packageSourceMapping",
                    new XElement(
                        "packageSource",
                        new XAttribute("key", "feed"),
                        new XElement("package", new XAttribute("pattern", "Salvo")),
                        new XElement("package", new XAttribute("pattern", "Salvo.*"))),
                    new XElement("packageSource", new XAttribute("key", "nuget.org"), new XElement("package", new XAttribute("pattern", "*")))),
                new XElement("fallbackPackageFolders", new XElement("add", new XAttribute("key", "cache"), new XAttribute("value", cache)))))
            .ToString();
    }
}
