using System.Text.RegularExpressions;
using Salvo.Tests.Architecture;

namespace Salvo.Docs.Tests;

/// <summary>
/// A figure in docs/benchmarks.md is worth quoting only with the day it was measured: on the reference guest any figure
/// moves 5-25 % between invocations (docs/benchmarks.md, top), so every section that gives a measured figure dates it.
/// </summary>
public sealed partial class BenchmarkDateTests
{
    [Fact]
    public void Sections_OfBenchmarks_WithAMeasuredFigure_GiveTheDateItWasMeasured()
    {
        var text = File.ReadAllText(Path.Combine(SourceTree.RepositoryRoot(), "docs", "benchmarks.md"));

        var undated = Sections(text)
            .Where(section => Figure().IsMatch(section.Text) && !Date().IsMatch(section.Text))
            .Select(section => $"{section.Heading}: {Figure().Match(section.Text).Value}");

        Assert.Empty(undated);
    }

    [Fact]
    public void Sections_SplitAtHeadingsOutsideCode_AndTheGuardSeesAnUndatedFigure()
    {
        var sections = Sections("# Top\n## Dated\n2026-11-24: 1,234 Mbit/s\n```sh\n# not a heading\n```\n## Undated\np99 80.2 us\n## Prose\nno figure\n");

        Assert.Equal(["# Top", "## Dated", "## Undated", "## Prose"], sections.Select(s => s.Heading));
        Assert.Equal(
            [false, false, true, false],
            sections.Select(s => Figure().IsMatch(s.Text) && !Date().IsMatch(s.Text)));
    }

    /// <summary>The text under each heading up to the next one; '#' lines inside fenced blocks are shell comments, not headings.</summary>
    private static List<(string Heading, string Text)> Sections(string markdown)
    {
        var sections = new List<(string Heading, string Text)>();
        var heading = string.Empty;
        var body = new List<string>();
        var inFence = false;
        foreach (var line in markdown.Split('\n'))
        {
            if (line.TrimStart().StartsWith("```", StringComparison.Ordinal))
            {
                inFence = !inFence;
            }

            if (!inFence && Heading().IsMatch(line))
            {
                if (heading.Length > 0 || body.Count > 0)
                {
                    sections.Add((heading, string.Join('\n', body)));
                }

                heading = line.TrimEnd();
                body.Clear();
            }
            else
            {
                body.Add(line);
            }
        }

        sections.Add((heading, string.Join('\n', body)));
        return sections;
    }

    [GeneratedRegex(@"\d[\d,.]*\s?(?:[MG]bit/s|datagrams/s|dgram/s|requests/s|us\b|µs|ms\b|ns\b)")]
    private static partial Regex Figure();

    [GeneratedRegex(@"20\d\d-\d\d-\d\d")]
    private static partial Regex Date();

    [GeneratedRegex(@"^#{1,6}\s")]
    private static partial Regex Heading();
}
