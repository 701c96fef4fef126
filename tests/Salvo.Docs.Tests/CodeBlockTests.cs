namespace Salvo.Docs.Tests;

/// <summary>How blocks are found and marked, and how a compile error is reported: the documentation tests stand on these.</summary>
public sealed class CodeBlockTests
{
    private const string Markdown = """
        # Title

        ```sh
        dotnet run
        ```

        ```csharp
        Console.WriteLine(logger);
        ```

        ```csharp fragment
        options.Workers = 4;
        ```

        ```csharp udp-echo=7007
        Console.WriteLine(7007);
        ```

        ```csharp fragement
        ```
        """;

    [Fact]
    public void Parse_Markdown_FindsTheCSharpBlocksWithTheirMarks()
    {
        var blocks = CodeBlock.Parse("docs/x.md", Markdown).ToList();

        Assert.Equal(["docs/x.md:7", "docs/x.md:11", "docs/x.md:15", "docs/x.md:19"], blocks.Select(block => block.Location));
        Assert.Equal("Console.WriteLine(logger);", blocks[0].Code);
        Assert.True(blocks[1].IsFragment);
        Assert.Equal((ExampleRun.UdpEcho, 7007), (blocks[2].Run, blocks[2].Port));
        Assert.All(blocks.Take(3), block => Assert.Null(block.Problem));
    }

    [Fact]
    public void Parse_AnUnknownWordInTheInfoString_IsAProblemNamingIt()
    {
        var block = CodeBlock.Parse("docs/x.md", Markdown).Last();

        Assert.Contains("'fragement'", block.Problem, StringComparison.Ordinal);
    }

    [Fact]
    public void Compile_AnUndeclaredName_ReportsFileLineAndCompilerMessage()
    {
        var block = CodeBlock.Parse("docs/x.md", Markdown).First();

        var errors = ExampleCompiler.Compile(block, block.Code);

        // The fence is on line 7, so the code's first line is line 8; 'logger' starts in column 19.
        Assert.Equal(["docs/x.md:8:19: error CS0103: The name 'logger' does not exist in the current context"], errors);
    }

    [Fact]
    public void Localize_ADocumentedPortAndWildcard_BecomeTheTestsPortAndLoopback()
    {
        var block = CodeBlock.Parse("docs/x.md", "```csharp udp-echo=7007\nvar e = new IPEndPoint(IPAddress.Any, 7007); // not 17007\n```").Single();

        Assert.Equal("var e = new IPEndPoint(IPAddress.Loopback, 40123); // not 17007", ExampleRunner.Localize(block, 40123));
    }
}
