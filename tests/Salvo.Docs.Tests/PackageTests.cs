using System.IO.Compression;
using System.Runtime.InteropServices;
using System.Xml.Linq;
using Salvo.Perf.Tests.Iperf3;

namespace Salvo.Docs.Tests;

/// <summary>
/// The packages as a reader gets them: packed, installed by the README's own install lines on an empty package cache into
/// a new console project, and the README's examples built and run against them; the tool installed and run. A minute or
/// two (the dependencies are downloaded once per run): <c>--filter Category!=Package</c> leaves these out.
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
    public void ReadmeInstallLines_OnAnEmptyPackageCache_AddTheLibraryAndItsExamplesBuildAndEcho()
    {
        Assert.True(feed.PackExitCode == 0, feed.PackOutput);
        var install = ReadmeInstall.Read();
        // The fixture packs the same way, on the build under test (--no-build) into a folder of its own.
        Assert.Equal(["dotnet", "pack", "-c", "Release", "-o", ReadmeInstall.PackageFolder], install.Pack);

        // A project outside the feed's folder, so that only the nuget.config the README's lines make applies, and a
        // package cache of its own, empty: every dependency comes through the sources those lines name.
        using var reader = new ReaderMachine();
        File.WriteAllText(Path.Combine(reader.Project, "App.csproj"), $"""
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
        foreach (var line in install.ProjectLines)
        {
            Dotnet(reader.Project, reader.Environment, ReadmeInstall.Arguments(line, feed.Feed));
        }

        Assert.True(
            File.ReadAllText(Path.Combine(reader.Project, "App.csproj")).Contains($"Include=\"Salvo\" Version=\"{feed.Version}\"", StringComparison.Ordinal),
            $"the README's lines did not add Salvo {feed.Version} from the folder");

        var examples = Documentation.Blocks.Where(block => block.File == "README.md" && block.Run == ExampleRun.UdpEcho).ToList();
        Assert.NotEmpty(examples);
        foreach (var example in examples)
        {
            var port = Iperf3Binary.FreePort();
            File.WriteAllText(Path.Combine(reader.Project, "Program.cs"), ExampleRunner.Localize(example, port));
            Dotnet(reader.Project, reader.Environment, "build", "-c", "Release", "--disable-build-servers");
            ExampleRunner.Prove(example, port, Path.Combine(reader.Project, "bin", "Release", $"net{Environment.Version.Major}.0", "App.dll"));
        }
    }

    [Fact]
    public void ReadmeToolLine_OnAnEmptyPackageCache_InstallsTheToolThatPrintsHelp()
    {
        Assert.True(feed.PackExitCode == 0, feed.PackOutput);
        using var reader = new ReaderMachine();
        var tools = Path.Combine(reader.Root, "tools");

        // The README installs globally; here the same line installs into a folder of the test's own.
        var line = ReadmeInstall.Arguments(ReadmeInstall.Read().ToolInstall, feed.Feed);
        Assert.Contains("--global", line);
        Dotnet(reader.Project, reader.Environment, [.. line.SelectMany(word => word == "--global" ? new[] { "--tool-path", tools } : [word])]);

        var salvo = Path.Combine(tools, OperatingSystem.IsWindows() ? "salvo.exe" : "salvo");
        var (exitCode, output) = ToolRun(salvo, "--help");
        Assert.True(exitCode == 0, output);
        Assert.Contains("loopback", output, StringComparison.Ordinal);
    }

    [Fact]
    public void ToolPackage_CarriesNativeLibrariesForLinuxX64AndArm64Only()
    {
        Assert.True(feed.PackExitCode == 0, feed.PackOutput);
        using var zip = ZipFile.OpenRead(Path.Combine(feed.Feed, $"Salvo.Perf.{feed.Version}.nupkg"));

        var runtimes = zip.Entries
            .Select(entry => entry.FullName.Split('/'))
            .Select(parts => Array.IndexOf(parts, "runtimes") is var at and >= 0 && at + 1 < parts.Length - 1 ? parts[at + 1] : null)
            .OfType<string>()
            .ToHashSet(StringComparer.Ordinal);

        // The tunnel runs on Linux only (elsewhere its commands refuse), so libsodium for other systems is dead weight.
        Assert.Contains("linux-x64", runtimes);
        Assert.Empty(runtimes.Except(["linux-x64", "linux-arm64"]));
    }

    private static void Dotnet(string folder, IReadOnlyDictionary<string, string> environment, params string[] arguments)
    {
        var (exitCode, output) = DotnetCli.Run(folder, arguments, environment);
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
