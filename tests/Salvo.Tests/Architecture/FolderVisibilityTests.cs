namespace Salvo.Tests.Architecture;

/// <summary>
/// In every shipping assembly each source folder holds only public types or only internal ones (top-level types;
/// nested ones go with their parent), so a folder's name tells whether it is API: public types sit at the root of a
/// folder, the internal ones that serve them in its Internal/ subfolder or in a folder of internal types only (Pal/).
/// </summary>
public sealed class FolderVisibilityTests
{
    private static readonly string[] s_shippingSources = ["Salvo", "Salvo.Hosting", "Salvo.Tunnel", "Salvo.Perf", "Common"];

    [Fact]
    public void EverySourceFolder_HoldsOnlyPublicOrOnlyInternalTypes()
    {
        var src = Path.Combine(SourceTree.RepositoryRoot(), "src");

        var mixed = s_shippingSources.SelectMany(assembly => MixedFolders(src, assembly)).ToList();

        Assert.True(mixed.Count == 0, "Folders with public and internal types side by side:\n" + string.Join('\n', mixed));
    }

    [Fact]
    public void VisibilityScan_SeesPublicAndInternalFolders()
    {
        // Guards the test above against passing because it read nothing.
        var library = Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo");
        var types = Resolve(TypeDeclarations.In(SourceTree.CSharpFiles(library)));

        Assert.Contains(types, type => type.Folder == library && type.IsPublic && type.Name == "DatagramSocket");
        Assert.Contains(types, type => type.Folder == Path.Combine(library, "Server", "Internal") && !type.IsPublic && type.Name == "ServerWorker");
    }

    private static IEnumerable<string> MixedFolders(string src, string assembly) => Resolve(TypeDeclarations.In(SourceTree.CSharpFiles(Path.Combine(src, assembly))))
        .GroupBy(type => type.Folder)
        .Where(folder => folder.Any(type => type.IsPublic) && folder.Any(type => !type.IsPublic))
        .Select(folder => $"{Path.GetRelativePath(src, folder.Key)}: public {Names(folder, isPublic: true)}; internal {Names(folder, isPublic: false)}");

    private static string Names(IEnumerable<ResolvedType> types, bool isPublic) =>
        string.Join(", ", types.Where(type => type.IsPublic == isPublic).Select(type => type.Name).Distinct().Order(StringComparer.Ordinal));

    /// <summary>A partial part that states no accessibility takes the one another part states; none stated is internal.</summary>
    private static List<ResolvedType> Resolve(List<TypeDeclaration> declarations)
    {
        var stated = declarations.Where(type => type.Access is not null).GroupBy(type => type.Name).ToDictionary(group => group.Key, group => group.First().Access);
        return [.. declarations.Select(type => new ResolvedType(
            Path.GetDirectoryName(type.File)!,
            type.Name,
            (type.Access ?? (type.IsPartial ? stated.GetValueOrDefault(type.Name) : null)) == "public"))];
    }

    private sealed record ResolvedType(string Folder, string Name, bool IsPublic);
}
