namespace Salvo.Tests.Architecture;

/// <summary>Everything in the library that knows the OS lives in the platform layer (src/Salvo/Pal).</summary>
public sealed class PlatformLayerTests
{
    private static readonly string[] s_osSpecific = ["OperatingSystem.Is", "Interop.Linux"];

    [Fact]
    public void LibrarySource_OutsidePlatformLayer_NeverAsksTheOsOrCallsInterop()
    {
        var library = Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo");
        var platformLayer = Path.Combine(library, "Pal") + Path.DirectorySeparatorChar;
        var sources = SourceTree.CSharpFiles(library);

        var offenders = sources
            .Where(file => !file.StartsWith(platformLayer, StringComparison.Ordinal))
            .SelectMany(file => File.ReadLines(file).Select((line, index) => (file, line, number: index + 1)))
            .Where(hit => s_osSpecific.Any(word => hit.line.Contains(word, StringComparison.Ordinal)))
            .Select(hit => $"{Path.GetRelativePath(library, hit.file)}:{hit.number}: {hit.line.Trim()}")
            .ToList();

        Assert.Empty(offenders);
    }

    [Fact]
    public void LibrarySource_LeasesSocketHandlesOnlyThroughTheMarshallerOrOneLease()
    {
        // Imports on a socket take its SafeHandle; the one call that cannot (poll's pollfd) goes through DescriptorLease.
        var library = Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo");
        var lease = Path.Combine(library, "Pal", "Linux", "DescriptorLease.cs");

        var leasing = SourceTree.CSharpFiles(library)
            .Where(file => file != lease && File.ReadAllText(file).Contains("DangerousAddRef", StringComparison.Ordinal))
            .Select(file => Path.GetRelativePath(library, file))
            .ToList();

        Assert.Empty(leasing);
        Assert.Contains("DangerousAddRef", File.ReadAllText(lease), StringComparison.Ordinal);
    }

    [Fact]
    public void SourceScan_SeesThePlatformLayersOwnChecks()
    {
        // Guards the test above against passing because it read nothing.
        var library = Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo");
        var platformSources = SourceTree.CSharpFiles(Path.Combine(library, "Pal"));

        Assert.Contains(platformSources, file => File.ReadAllText(file).Contains(s_osSpecific[0], StringComparison.Ordinal));
        Assert.Contains(platformSources, file => File.ReadAllText(file).Contains(s_osSpecific[1], StringComparison.Ordinal));
    }
}
