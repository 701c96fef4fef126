using System.Xml.Linq;
using Salvo.Tests.Architecture;

namespace Salvo.Docs.Tests;

/// <summary>
/// The solution's packages, packed from the build the tests run on into a folder of their own, which the README's install
/// lines then use as a package source (<see cref="ReadmeInstall"/>).
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
    }

    /// <summary>The folder holding everything; deleted on dispose.</summary>
    public string Root { get; }

    /// <summary>The folder the packages are packed into, a package source.</summary>
    public string Feed { get; }

    /// <summary>The solution's version, Directory.Build.props's VersionPrefix.</summary>
    public string Version { get; }

    public int PackExitCode { get; }

    public string PackOutput { get; }

    public void Dispose() => Directory.Delete(Root, recursive: true);

    private static string VersionPrefix(string props) =>
        XDocument.Load(props).Descendants("VersionPrefix").SingleOrDefault()?.Value
            ?? throw new InvalidOperationException($"{props} has no VersionPrefix: the solution's version has no one place.");
}
