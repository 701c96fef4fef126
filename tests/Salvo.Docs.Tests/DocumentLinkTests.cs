using System.Text.RegularExpressions;
using Salvo.Tests.Architecture;

namespace Salvo.Docs.Tests;

/// <summary>Every relative link in the repository's markdown leads to a file it has, and to a heading there when it names one.</summary>
public sealed partial class DocumentLinkTests
{
    public static TheoryData<string> Files()
    {
        var rows = new TheoryData<string>();
        foreach (var file in MarkdownFiles())
        {
            rows.Add(file);
        }

        return rows;
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void RelativeLinks_InAMarkdownFile_ResolveToAFileAndHeadingOfTheRepository(string file)
    {
        var root = SourceTree.RepositoryRoot();
        var broken = new List<string>();
        foreach (var (line, target) in Links(File.ReadAllText(Path.Combine(root, file))))
        {
            var hash = target.IndexOf('#', StringComparison.Ordinal);
            var path = hash < 0 ? target : target[..hash];
            var anchor = hash < 0 ? null : target[(hash + 1)..];
            var resolved = path.Length == 0
                ? Path.Combine(root, file)
                : Path.GetFullPath(Path.Combine(root, Path.GetDirectoryName(file)!, Uri.UnescapeDataString(path)));
            if (!resolved.StartsWith(root, StringComparison.Ordinal) || (!File.Exists(resolved) && !Directory.Exists(resolved)))
            {
                broken.Add($"{file}:{line}: {target}: no such file in the repository");
            }
            else if (anchor is { Length: > 0 } && resolved.EndsWith(".md", StringComparison.Ordinal) && !Anchors(File.ReadAllText(resolved)).Contains(anchor))
            {
                broken.Add($"{file}:{line}: {target}: no heading '#{anchor}' in {Path.GetRelativePath(root, resolved)}");
            }
        }

        Assert.True(broken.Count == 0, string.Join(Environment.NewLine, broken));
    }

    [Fact]
    public void Anchors_AreGitHubsHeadingSlugs()
    {
        var anchors = Anchors("# The `salvo` command line\n## `salvo server` and `salvo client HOST`\n### What it counts, and logs\n## Twice\n## Twice\n");

        Assert.Equal(["the-salvo-command-line", "salvo-server-and-salvo-client-host", "what-it-counts-and-logs", "twice", "twice-1"], anchors);
    }

    [Fact]
    public void Links_InCodeAreNotLinks()
    {
        var links = Links("[a](a.md) `[b](b.md)`\n```\n[c](c.md)\n```\n[d](https://example.org) [e](#e) `over\n[g](g.md)`\n[f]: f.md\n").Select(l => l.Target);

        Assert.Equal(["a.md", "#e", "f.md"], links);
    }

    private static IEnumerable<string> MarkdownFiles()
    {
        var root = SourceTree.RepositoryRoot();
        return Directory.EnumerateFiles(root, "*.md")
            .Concat(Directory.EnumerateFiles(Path.Combine(root, "docs"), "*.md"))
            .Concat(Directory.EnumerateDirectories(Path.Combine(root, "src")).Select(p => Path.Combine(p, "README.md")).Where(File.Exists))
            .Select(f => Path.GetRelativePath(root, f).Replace('\\', '/'))
            .Order(StringComparer.Ordinal);
    }

    /// <summary>The relative links of a markdown text with their line numbers: inline and reference definitions, outside code.</summary>
    private static IEnumerable<(int Line, string Target)> Links(string markdown)
    {
        // Fenced blocks and code spans (which may run over a line break) are blanked, keeping the line breaks.
        var inFence = false;
        var prose = string.Join('\n', markdown.Split('\n').Select(line =>
        {
            var fence = line.TrimStart().StartsWith("```", StringComparison.Ordinal);
            inFence ^= fence;
            return fence || inFence ? string.Empty : line;
        }));
        prose = CodeSpan().Replace(prose, span => new string('\n', span.Value.Count(c => c == '\n')));
        var number = 0;
        foreach (var line in prose.Split('\n'))
        {
            number++;
            var targets = InlineLink().Matches(line).Select(m => m.Groups[1].Value)
                .Concat(ReferenceDefinition().Matches(line).Select(m => m.Groups[1].Value));
            foreach (var target in targets.Where(t => !t.Contains("://", StringComparison.Ordinal) && !t.StartsWith("mailto:", StringComparison.Ordinal)))
            {
                yield return (number, target);
            }
        }
    }

    /// <summary>The anchors GitHub gives the headings: lower case, punctuation but '-' and '_' dropped, spaces to '-', repeats numbered.</summary>
    private static List<string> Anchors(string markdown)
    {
        var anchors = new List<string>();
        var inFence = false;
        foreach (var line in markdown.Split('\n'))
        {
            if (line.TrimStart().StartsWith("```", StringComparison.Ordinal))
            {
                inFence = !inFence;
            }

            if (inFence || Heading().Match(line) is not { Success: true } heading)
            {
                continue;
            }

            var slug = NotInSlug().Replace(heading.Groups[1].Value.Trim().ToLowerInvariant(), string.Empty).Replace(' ', '-');
            var taken = anchors.Count(a => a == slug || a.StartsWith(slug + "-", StringComparison.Ordinal) && int.TryParse(a[(slug.Length + 1)..], out _));
            anchors.Add(taken == 0 ? slug : $"{slug}-{taken}");
        }

        return anchors;
    }

    [GeneratedRegex(@"`[^`]*`")]
    private static partial Regex CodeSpan();

    [GeneratedRegex(@"\]\(([^)\s]+)(?:\s+""[^""]*"")?\)")]
    private static partial Regex InlineLink();

    [GeneratedRegex(@"^\s{0,3}\[[^\]]+\]:\s*(\S+)")]
    private static partial Regex ReferenceDefinition();

    [GeneratedRegex(@"^#{1,6}\s+(.+?)\s*#*\s*$")]
    private static partial Regex Heading();

    [GeneratedRegex(@"[^\p{L}\p{Nd}\s_-]")]
    private static partial Regex NotInSlug();
}
