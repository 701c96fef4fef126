using System.Globalization;

namespace Salvo.Docs.Tests;

/// <summary>How the tests prove a complete example that runs: what a reader would do to see it work.</summary>
internal enum ExampleRun
{
    /// <summary>Compiled only (a type for a program of the reader's, or one that needs what a test does not have).</summary>
    None,

    /// <summary>A UDP server: datagrams sent to its port on loopback come back unchanged; Ctrl+C ends it with exit code 0.</summary>
    UdpEcho,

    /// <summary>A TCP server with STX/ETX framing: a framed message comes back framed; Ctrl+C ends it with exit code 0.</summary>
    TcpStxEcho,

    /// <summary>A program that ends by itself with exit code 0.</summary>
    Exits,
}

/// <summary>
/// One C# block of a markdown file. The block's info string says what it is (GitHub reads only the first word):
/// <list type="bullet">
/// <item><c>```csharp</c>: complete; compiles alone, as a reader pastes it into a new console project.</item>
/// <item><c>```csharp fragment</c>: part of a program that the text around it describes; not compiled.</item>
/// <item><c>```csharp udp-echo=7007</c>, <c>tcp-stx-echo=7011</c>, <c>exits=7010</c>: complete, and run as
/// <see cref="ExampleRun"/> says, with the port it names replaced by a free one.</item>
/// </list>
/// </summary>
internal sealed record CodeBlock(string File, int Line, bool IsFragment, ExampleRun Run, int Port, string Code, string? Problem)
{
    private static readonly string[] s_languages = ["csharp", "cs", "c#"];

    /// <summary>Where the block opens, as <c>docs/server.md:9</c> (the fence's line, 1-based).</summary>
    public string Location => $"{File}:{Line.ToString(CultureInfo.InvariantCulture)}";

    /// <summary>The C# blocks of <paramref name="text"/>, the markdown file <paramref name="file"/>.</summary>
    public static IEnumerable<CodeBlock> Parse(string file, string text)
    {
        var lines = text.Split('\n');
        for (var i = 0; i < lines.Length; i++)
        {
            var fence = lines[i].TrimEnd('\r');
            if (!fence.StartsWith("```", StringComparison.Ordinal))
            {
                continue;
            }

            var end = i + 1;
            while (end < lines.Length && !lines[end].TrimEnd('\r').StartsWith("```", StringComparison.Ordinal))
            {
                end++;
            }

            var words = fence[3..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (words.Length > 0 && s_languages.Contains(words[0], StringComparer.OrdinalIgnoreCase))
            {
                var code = string.Join('\n', lines[(i + 1)..Math.Min(end, lines.Length)]);
                yield return FromInfo(file, i + 1, words[1..], code);
            }

            i = end;
        }
    }

    private static CodeBlock FromInfo(string file, int line, string[] words, string code)
    {
        var block = new CodeBlock(file, line, IsFragment: false, ExampleRun.None, Port: 0, code, Problem: null);
        foreach (var word in words)
        {
            var (name, value) = word.Split('=', 2) is [var n, var v] ? (n, v) : (word, null);
            var run = name switch
            {
                "udp-echo" => ExampleRun.UdpEcho,
                "tcp-stx-echo" => ExampleRun.TcpStxEcho,
                "exits" => ExampleRun.Exits,
                _ => ExampleRun.None,
            };
            if (name == "fragment" && value is null)
            {
                block = block with { IsFragment = true };
            }
            else if (run != ExampleRun.None && int.TryParse(value, CultureInfo.InvariantCulture, out var port) && port is > 0 and <= 65_535)
            {
                block = block with { Run = run, Port = port };
            }
            else
            {
                return block with
                {
                    Problem = $"'{word}' in the info string is neither 'fragment' nor udp-echo=PORT, tcp-stx-echo=PORT or exits=PORT.",
                };
            }
        }

        return block.IsFragment && block.Run != ExampleRun.None
            ? block with { Problem = "A fragment cannot be run: drop 'fragment' or the run word." }
            : block;
    }
}
