using System.IO.Compression;
using System.Runtime.InteropServices;
using System.Xml.Linq;
using Salvo.Perf.Tests.Iperf3;

namespace Salvo.Docs.Tests;

/// <summary>
/// The packages as a reader gets them: packed, installed from a folder into a new console project, and the README's
/// examples built and run against them; the tool installed and run. About a minute: <c>--filter Category!=Package</c>
/// leaves these out.
/// </summary>
[Trait("Category", "Package")]
public sealed class PackageTests(PackedFeed feed) : IClassFixture<PackedFeed>
{
    [Fact]
    public void Pack_TheSolution_GivesEveryPackageLicenceReadmeAndSymbolsWithoutWarnings()
    {
        Assert.True(feed.PackExitCode == 0, feed.PackOutput);
        Assert.DoesNotContain("warning", feed.PackOutput, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("missing a readme", feed.PackOutput, StringComparison.Ordinal);

        foreach (var id in PackedFeed.Ids)
        {
            var package = Path.Combine(feed.Feed, $"{id}.{feed.Version}.nupkg");
            Assert.True(File.Exists(package), $"no {Path.GetFileName(package)} in: {string.Join(", ", Directory.GetFiles(feed.Feed).Select(Path.GetFileName))}");
            Assert.True(File.Exists(Path.ChangeExtension(package, ".snupkg")), $"{id} has no symbols package");

            using var zip = ZipFile.OpenRead(package);
            var nuspec = Nuspec(zip);
            var metadata = nuspec.Root!.Elements().Single(element => element.Name.LocalName == "metadata");
            string? Field(string name) => metadata.Elements().SingleOrDefault(element => element.Name.LocalName == name)?.Value;
            var license = metadata.Elements().SingleOrDefault(element => element.Name.LocalName == "license");

            Assert.Equal("expression", license?.Attribute("type")?.Value);
            Assert.Equal("MIT", license?.Value);
            Assert.False(string.IsNullOrWhiteSpace(Field("description")), $"{id} has no description");
            Assert.False(string.IsNullOrWhiteSpace(Field("tags")), $"{id} has no tags");
            var readme = Field("readme");
            Assert.True(readme is not null, $"{id} names no readme");
            var text = new StreamReader(zip.GetEntry(readme)!.Open()).ReadToEnd();
            Assert.Contains(id, text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void ReadmeExamples_AgainstThePackagesFromAFolder_BuildAndEcho()
    {
        Assert.True(feed.PackExitCode == 0, feed.PackOutput);
        var app = Directory.CreateDirectory(Path.Combine(feed.Root, "app")).FullName;
        File.WriteAllText(Path.Combine(app, "App.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net{Environment.Version.Major}.0</TargetFramework>
                <ImplicitUsings>enable</ImplicitUsings>
                <Nullable>enable</Nullable>
                <TreatWarningsAsErrors>true</TreatWarningsAsErrors>
              </PropertyGroup>
            </Project>
            """);

        // The README's Install line, from the folder.
        Dotnet(app, "add", "package", "Salvo", "--version", feed.Version);

        var examples = Documentation.Blocks.Where(block => block.File == "README.md" && block.Run == ExampleRun.UdpEcho).ToList();
        Assert.NotEmpty(examples);
        foreach (var example in examples)
        {
            var port = Iperf3Binary.FreePort();
            File.WriteAllText(Path.Combine(app, "Program.cs"), ExampleRunner.Localize(example, port));
            Dotnet(app, "build", "-c", "Release", "--disable-build-servers");
            ExampleRunner.Prove(example, port, Path.Combine(app, "bin", "Release", $"net{Environment.Version.Major}.0", "App.dll"));
        }
    }

    [Fact]
    public void ToolPackage_InstalledFromAFolder_PrintsHelp()
    {
        Assert.True(feed.PackExitCode == 0, feed.PackOutput);
        var tools = Path.Combine(feed.Root, "tools");

        Dotnet(feed.Root, "tool", "install", "Salvo.Perf", "--tool-path", tools, "--version", feed.Version, "--configfile", feed.ConfigFile);

        var salvo = Path.Combine(tools, OperatingSystem.IsWindows() ? "salvo.exe" : "salvo");
        var (exitCode, output) = ToolRun(salvo, "--help");
        Assert.True(exitCode == 0, output);
        Assert.Contains("loopback", output, StringComparison.Ordinal);
    }

    /// <summary>Runs dotnet in <paramref name="folder"/>, below the feed's nuget.config, which NuGet finds from there.</summary>
    private void Dotnet(string folder, params string[] arguments)
    {
        var (exitCode, output) = DotnetCli.Run(folder, arguments, feed.Environment);
        Assert.True(exitCode == 0, $"dotnet {string.Join(' ', arguments)} exited {exitCode}: {output}");
    }

    private static (int ExitCode, string Output) ToolRun(string tool, params string[] arguments)
    {
        // The tool's launcher finds the runtime through DOTNET_ROOT where dotnet is not in its default place;
        // the runtime directory is DOTNET_ROOT/shared/Microsoft.NETCore.App/VERSION.
        var root = new DirectoryInfo(RuntimeEnvironment.GetRuntimeDirectory().TrimEnd(Path.DirectorySeparatorChar)).Parent!.Parent!.Parent!.FullName;
        return DotnetCli.RunProgram(tool, Path.GetTempPath(), arguments, new Dictionary<string, string> { ["DOTNET_ROOT"] = root });
    }

    private static XDocument Nuspec(ZipArchive zip)
    {
        var entry = zip.Entries.Single(entry => entry.FullName.EndsWith(".nuspec", StringComparison.Ordinal) && !entry.FullName.Contains('/', StringComparison.Ordinal));
        using var stream = entry.Open();
        return XDocument.Load(stream);
    }
}
