namespace Salvo.Tests.Architecture;

/// <summary>
/// Everything that knows the OS lives in its assembly's platform layer: src/Salvo/Pal for the library,
/// src/Salvo.Tunnel/Pal for the tunnel (the TUN device and its cipher), and the libc imports both need in src/Common,
/// one copy of source compiled into each. Nowhere else asks which OS it runs on, imports a native function or names
/// an interop namespace.
/// </summary>
public sealed class PlatformLayerTests
{
    private static readonly string[] s_osSpecific = ["OperatingSystem.Is", "Interop.", "LibraryImport", "DllImport"];

    /// <summary>
    /// The shipping assemblies and their platform layer (null: none, so no OS code at all). The CLI, src/Salvo.Perf, has
    /// its own Platform/ folder and its own test, <see cref="CliPlatformTests"/>.
    /// </summary>
    public static TheoryData<string, string?> Assemblies => new()
    {
        { "Salvo", "Pal" },
        { "Salvo.Tunnel", "Pal" },
        { "Salvo.Hosting", null },
    };

    [Theory]
    [MemberData(nameof(Assemblies))]
    public void Source_OutsideItsPlatformLayer_NeverAsksTheOsOrCallsInterop(string assembly, string? platformLayer)
    {
        var root = Path.Combine(SourceTree.RepositoryRoot(), "src", assembly);
        var layer = platformLayer is null ? null : Path.Combine(root, platformLayer) + Path.DirectorySeparatorChar;
        var sources = SourceTree.CSharpFiles(root).Where(file => layer is null || !file.StartsWith(layer, StringComparison.Ordinal));

        var offenders = Offenders(root, sources, s_osSpecific);

        Assert.Empty(offenders);
    }

    [Theory]
    [InlineData("src/Salvo/Pal")]
    [InlineData("src/Salvo.Tunnel/Pal")]
    public void SourceScan_SeesEachPlatformLayersOwnChecksAndImports(string platformLayer)
    {
        // Guards the test above against passing because it read nothing: each layer picks its platform with an OS
        // check and calls libc through LibraryImport.
        var sources = SourceTree.CSharpFiles(Path.Combine(SourceTree.RepositoryRoot(), platformLayer));

        Assert.Contains(sources, file => File.ReadAllText(file).Contains("OperatingSystem.Is", StringComparison.Ordinal));
        Assert.Contains(sources, file => File.ReadAllText(file).Contains("LibraryImport", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("src/Salvo/Salvo.csproj")]
    [InlineData("src/Salvo.Tunnel/Salvo.Tunnel.csproj")]
    public void CommonSource_IsCompiledIntoBothAssembliesThatUseIt(string project)
    {
        var text = File.ReadAllText(Path.Combine(SourceTree.RepositoryRoot(), project));

        Assert.Contains("<Compile Include=\"../Common/**/*.cs\"", text, StringComparison.Ordinal);
    }

    [Fact]
    public void CommonSource_HoldsOnlyTypesBothAssembliesUse()
    {
        // src/Common is for what the library and the tunnel both need; a type only one of them uses belongs in its own
        // platform layer (or folder), where the other cannot reach it. The rtnetlink codec (Interop/Linux/Netlink) is
        // one unit: both use its socket and request loop, and each reads only the messages it asks for (AF_XDP
        // neighbours and links, the tunnel's routes and addresses), so it is judged by its socket, not type by type.
        var repository = SourceTree.RepositoryRoot();
        var common = Path.Combine(repository, "src", "Common");
        var codec = Path.Combine(common, "Interop", "Linux", "Netlink") + Path.DirectorySeparatorChar;
        var library = AllText(Path.Combine(repository, "src", "Salvo"));
        var tunnel = AllText(Path.Combine(repository, "src", "Salvo.Tunnel"));
        var types = TypeDeclarations.In(SourceTree.CSharpFiles(common).Where(file => !file.StartsWith(codec, StringComparison.Ordinal)))
            .Select(type => type.Name).Append("NetlinkSocket").Distinct().ToList();

        var usedByOneOnly = types
            .Where(name => !TypeDeclarations.Mentions(library, name) || !TypeDeclarations.Mentions(tunnel, name))
            .ToList();

        Assert.NotEmpty(types);
        Assert.Empty(usedByOneOnly);
    }

    [Fact]
    public void TunnelSource_ReachesTheOsThroughItsOwnPlatform()
    {
        // The device and the cipher come from the tunnel's own platform, chosen once; the library's is internal to it.
        var tunnel = Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo.Tunnel");
        var sources = SourceTree.CSharpFiles(tunnel);

        Assert.Contains(sources, file => File.ReadAllText(file).Contains("TunnelPlatform.Current.OpenTunDevice", StringComparison.Ordinal));
        Assert.Contains(sources, file => File.ReadAllText(file).Contains("TunnelPlatform.Current.CreateChaCha20Poly1305Key", StringComparison.Ordinal));
    }

    [Fact]
    public void Source_LeasesHandlesOnlyThroughTheMarshallerOrTheThreeLeases()
    {
        // Imports on a descriptor take its SafeHandle; the one call that cannot (poll's pollfd) goes through
        // DescriptorLease (shared), an io_uring receive, which outlives its submitting call, through DescriptorHold, and
        // the tunnel's cipher holds its OpenSSL context once for the three or four libcrypto calls of one packet (a
        // handle marshalled per call was part of the per-packet cost cut in docs/benchmarks.md, "The tunnel at the
        // cipher's speed").
        var src = Path.Combine(SourceTree.RepositoryRoot(), "src");
        string[] leases =
        [
            Path.Combine("Common", "Interop", "Linux", "DescriptorLease.cs"), Path.Combine("Salvo", "Pal", "Linux", "DescriptorHold.cs"),
            Path.Combine("Salvo.Tunnel", "Pal", "Linux", "OpenSslChaCha20Poly1305Key.cs"),
        ];

        var leasing = new[] { "Salvo", "Salvo.Tunnel", "Common" }
            .SelectMany(folder => SourceTree.CSharpFiles(Path.Combine(src, folder)))
            .Where(file => File.ReadAllText(file).Contains("DangerousAddRef", StringComparison.Ordinal))
            .Select(file => Path.GetRelativePath(src, file))
            .Order(StringComparer.Ordinal)
            .ToList();

        Assert.Equal(leases.Order(StringComparer.Ordinal), leasing);
    }

    private static string AllText(string folder) => string.Join('\n', SourceTree.CSharpFiles(folder).Select(File.ReadAllText));

    private static List<string> Offenders(string root, IEnumerable<string> sources, string[] words) => sources
        .SelectMany(file => File.ReadLines(file).Select((line, index) => (file, line, number: index + 1)))
        .Where(hit => words.Any(word => hit.line.Contains(word, StringComparison.Ordinal)))
        .Select(hit => $"{Path.GetRelativePath(root, hit.file)}:{hit.number}: {hit.line.Trim()}")
        .ToList();
}
