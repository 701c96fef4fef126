using System.Text.RegularExpressions;

namespace Salvo.Tests.Architecture;

/// <summary>
/// Shipping assemblies meet only at each other's public API: none lets another see its internals, so what the tunnel
/// or the host needs from the library is public (documented, in the PublicAPI files) or its own copy of source from
/// src/Common, never a reach behind the library's back.
/// </summary>
public sealed partial class AssemblyBoundaryTests
{
    private static readonly string[] s_shipping = ["Salvo", "Salvo.Hosting", "Salvo.Tunnel", "Salvo.Perf"];

    [Fact]
    public void ShippingAssemblies_GrantNoInternalsToEachOther()
    {
        // The CLI included: what it needs of the library is public (a thread's own io_uring ring, whether a backend runs
        // here, the io_uring threads' name), so it measures what a user of the package can build.
        var grants = s_shipping
            .SelectMany(assembly => GrantsOf(assembly).Where(s_shipping.Contains).Select(to => $"{assembly} -> {to}"))
            .ToList();

        Assert.Empty(grants);
    }

    [Fact]
    public void Tunnel_NeitherGrantsNorReceivesInternals()
    {
        var grants = s_shipping
            .SelectMany(assembly => GrantsOf(assembly).Select(to => (From: assembly, To: to)))
            .Where(grant => grant.From != grant.To && (grant.To == "Salvo.Tunnel" || (grant.From == "Salvo.Tunnel" && s_shipping.Contains(grant.To))))
            .ToList();

        Assert.Empty(grants);
    }

    [Fact]
    public void GrantScan_SeesTheLibrarysGrantToItsTests()
    {
        // Guards the tests above against passing because they read nothing.
        Assert.Contains("Salvo.Tests", GrantsOf("Salvo"));
        Assert.Contains("Salvo.Tunnel.Tests", GrantsOf("Salvo.Tunnel"));
    }

    /// <summary>The assemblies <paramref name="assembly"/> lets see its internals: its project's items and any assembly attribute in its source.</summary>
    private static List<string> GrantsOf(string assembly)
    {
        var folder = Path.Combine(SourceTree.RepositoryRoot(), "src", assembly);
        var project = File.ReadAllText(Path.Combine(folder, assembly + ".csproj"));
        var fromProject = ProjectGrant().Matches(project).Select(match => match.Groups["to"].Value);
        var fromSource = SourceTree.CSharpFiles(folder)
            .SelectMany(file => SourceGrant().Matches(File.ReadAllText(file)).Select(match => match.Groups["to"].Value));
        return [.. fromProject.Concat(fromSource)];
    }

    [GeneratedRegex(@"<InternalsVisibleTo\s+Include=""(?<to>[^"";,]+)")]
    private static partial Regex ProjectGrant();

    [GeneratedRegex(@"\[assembly:\s*(?:System\.Runtime\.CompilerServices\.)?InternalsVisibleTo\(""(?<to>[^"",]+)")]
    private static partial Regex SourceGrant();
}
