using Salvo.Tests.Architecture;

namespace Salvo.Docs.Tests;

/// <summary>The markdown a reader meets: the README, docs/*.md and each package's own readme.</summary>
internal static class Documentation
{
    private static readonly Lazy<IReadOnlyList<CodeBlock>> s_blocks = new(Read);

    /// <summary>Every C# block of every file, in file order.</summary>
    public static IReadOnlyList<CodeBlock> Blocks => s_blocks.Value;

    /// <summary>The block that opens at <paramref name="location"/> (<see cref="CodeBlock.Location"/>).</summary>
    public static CodeBlock At(string location) => Blocks.Single(block => block.Location == location);

    /// <summary>Theory rows: one location per block that <paramref name="include"/> keeps.</summary>
    public static TheoryData<string> Locations(Func<CodeBlock, bool> include)
    {
        var rows = new TheoryData<string>();
        foreach (var block in Blocks.Where(include))
        {
            rows.Add(block.Location);
        }

        return rows;
    }

    private static List<CodeBlock> Read()
    {
        var root = SourceTree.RepositoryRoot();
        var files = new[] { Path.Combine(root, "README.md") }
            .Concat(Directory.EnumerateFiles(Path.Combine(root, "docs"), "*.md").Order(StringComparer.Ordinal))
            .Concat(Directory.EnumerateDirectories(Path.Combine(root, "src"))
                .Select(project => Path.Combine(project, "README.md"))
                .Where(File.Exists)
                .Order(StringComparer.Ordinal));
        return files
            .SelectMany(file => CodeBlock.Parse(Path.GetRelativePath(root, file).Replace('\\', '/'), File.ReadAllText(file)))
            .ToList();
    }
}
