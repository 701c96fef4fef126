using System.Text.RegularExpressions;

namespace Salvo.Tests.Architecture;

/// <summary>Every unsafe type, member or block says why it is sound, in a "// Safety:" comment.</summary>
public sealed partial class UnsafeCodeTests
{
    [Theory]
    [InlineData("src")]
    [InlineData("benchmarks")]
    public void EveryUnsafeSite_HasASafetyComment(string folder)
    {
        var root = Path.Combine(SourceTree.RepositoryRoot(), folder);

        var unexplained = SourceTree.CSharpFiles(root)
            .Select(file => (file, text: File.ReadAllText(file)))
            .Select(source => (source.file, sites: UnsafeKeyword().Count(source.text), comments: SafetyComment().Count(source.text)))
            .Where(count => count.sites > count.comments)
            .Select(count => $"{Path.GetRelativePath(root, count.file)}: {count.sites} unsafe, {count.comments} // Safety:")
            .ToList();

        Assert.Empty(unexplained);
    }

    [Fact]
    public void UnsafeScan_FindsTheLinuxBackendsUnsafeCode()
    {
        // Guards the test above against passing because it read nothing.
        var backend = File.ReadAllText(Path.Combine(SourceTree.RepositoryRoot(), "src", "Salvo", "Pal", "Linux", "LinuxReceiveVectors.cs"));

        Assert.True(UnsafeKeyword().Count(backend) > 0);
    }

    // The keyword as a modifier or a block, not inside a word or a comment's prose about it.
    [GeneratedRegex(@"^(?!\s*//)[^""\n]*\bunsafe\b", RegexOptions.Multiline)]
    private static partial Regex UnsafeKeyword();

    [GeneratedRegex(@"^\s*// Safety:", RegexOptions.Multiline)]
    private static partial Regex SafetyComment();
}
