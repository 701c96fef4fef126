namespace Salvo.Docs.Tests;

/// <summary>
/// Every C# block of the README, docs/*.md and the package readmes compiles as pasted, unless marked a fragment
/// (<see cref="CodeBlock"/> says how blocks are marked), and every server or program among them runs and does
/// what its text says.
/// </summary>
public sealed class DocumentationExampleTests
{
    public static TheoryData<string> CompleteBlocks => Documentation.Locations(block => !block.IsFragment || block.Problem is not null);

    public static TheoryData<string> RunnableBlocks => Documentation.Locations(block => block.Run != ExampleRun.None && block.Problem is null);

    [Theory]
    [MemberData(nameof(CompleteBlocks))]
    public void CSharpBlock_PastedIntoAConsoleProject_CompilesWithoutWarnings(string location)
    {
        var block = Documentation.At(location);
        Assert.True(block.Problem is null, $"{location}: {block.Problem}");

        var errors = ExampleCompiler.Compile(block, block.Code);

        Assert.True(errors.Count == 0, string.Join(Environment.NewLine, errors));
    }

    [Theory]
    [MemberData(nameof(RunnableBlocks))]
    public void Example_RunAsPasted_DoesWhatItsTextSays(string location)
    {
        ExampleRunner.CompileAndProve(Documentation.At(location));
    }

    [Fact]
    public void Documentation_EveryFile_HasItsCSharpBlocksFound()
    {
        // A parser that found nothing would pass every theory above; these files hold examples.
        var files = Documentation.Blocks.Select(block => block.File).ToHashSet();

        Assert.Contains("README.md", files);
        Assert.Contains("docs/server.md", files);
        Assert.Contains("docs/streams.md", files);
        Assert.True(
            Documentation.Blocks.Any(block => block.Run == ExampleRun.UdpEcho && block.File == "README.md"),
            "README.md has no block marked udp-echo=PORT: its server examples are not run.");
    }
}
