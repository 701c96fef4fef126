namespace Salvo.Tests.Architecture;

/// <summary>Everything that knows the OS lives in the library's platform layer (src/Salvo/Pal); the tunnel reaches it through that layer.</summary>
public sealed class PlatformLayerTests
{
    private static readonly string[] s_osSpecific = ["OperatingSystem.Is", "Interop.Linux"];

    // The tunnel has no platform layer of its own: no OS check, no interop namespace, no import of any kind.
    private static readonly string[] s_tunnelOsSpecific = ["OperatingSystem.Is", "Interop.", "LibraryImport", "DllImport"];

    [Fact]
    public void LibrarySource_OutsidePlatformLayer_NeverAsksTheOsOrCallsInterop()
    {
        var library = Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo");
        var platformLayer = Path.Combine(library, "Pal") + Path.DirectorySeparatorChar;
        var sources = SourceTree.CSharpFiles(library);

        var offenders = Offenders(library, sources.Where(file => !file.StartsWith(platformLayer, StringComparison.Ordinal)), s_osSpecific);

        Assert.Empty(offenders);
    }

    [Fact]
    public void TunnelSource_NeverAsksTheOsOrCallsInterop()
    {
        var tunnel = Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo.Tunnel");

        var offenders = Offenders(tunnel, SourceTree.CSharpFiles(tunnel), s_tunnelOsSpecific);

        Assert.Empty(offenders);
    }

    [Fact]
    public void TunnelSource_ReachesTheOsThroughTheLibrarysPlatform()
    {
        // Guards the test above against passing because it read nothing: the device comes from Platform.Current.
        var tunnel = Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo.Tunnel");

        Assert.Contains(SourceTree.CSharpFiles(tunnel), file => File.ReadAllText(file).Contains("Platform.Current.OpenTunDevice", StringComparison.Ordinal));
    }

    [Fact]
    public void LibrarySource_LeasesSocketHandlesOnlyThroughTheMarshallerOrOneLease()
    {
        // Imports on a socket take its SafeHandle; the one call that cannot (poll's pollfd) goes through DescriptorLease,
        // and an io_uring receive, which outlives its submitting call, through DescriptorHold in the same file.
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

    private static List<string> Offenders(string root, IEnumerable<string> sources, string[] words) => sources
        .SelectMany(file => File.ReadLines(file).Select((line, index) => (file, line, number: index + 1)))
        .Where(hit => words.Any(word => hit.line.Contains(word, StringComparison.Ordinal)))
        .Select(hit => $"{Path.GetRelativePath(root, hit.file)}:{hit.number}: {hit.line.Trim()}")
        .ToList();
}
