using System.CommandLine;
using System.Text.RegularExpressions;

namespace Salvo.Perf.Tests;

/// <summary>docs/cli.md against the program: the commands its opening names, and each command's options against its --help.</summary>
public sealed partial class CliDocsTests
{
    // Every option --help lists under every command; these say nothing about one command.
    private static readonly string[] CommonOptions = ["--json", "-J", "--json-stream", "--help", "-h", "-?", "--version"];

    // transport's section names --interval-ms only in its prose, not in a synopsis or an options table, so the rules below
    // cannot find it there.
    private static readonly string[] NotChecked = ["transport"];

    private static readonly Lazy<Dictionary<string, Command>> s_commands =
        new(() => HelpTextTests.Walk(HelpTextTests.Root(), includeHidden: true).ToDictionary(c => c.Path, c => c.Command));

    private static readonly Lazy<string> s_text = new(() => WithoutCodeBlocks().Replace(File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "docs", "cli.md")), string.Empty));

    public static TheoryData<string> DocumentedCommands()
    {
        var data = new TheoryData<string>();
        foreach (var (path, _) in HelpTextTests.Walk(HelpTextTests.Root(), includeHidden: false).Where(c => !NotChecked.Contains(c.Path)))
        {
            data.Add(path);
        }

        return data;
    }

    [Fact]
    public void Opening_NamesEveryCommand()
    {
        var text = s_text.Value;
        var start = text.IndexOf("`salvo` measures", StringComparison.Ordinal);
        var opening = text[start..text.IndexOf("\n\n", start, StringComparison.Ordinal)];

        foreach (var command in HelpTextTests.Root().Subcommands.Where(c => !c.Hidden))
        {
            Assert.True(opening.Contains($"`{command.Name}`", StringComparison.Ordinal), $"the opening of docs/cli.md does not name '{command.Name}':{Environment.NewLine}{opening}");
        }
    }

    [Theory]
    [MemberData(nameof(DocumentedCommands))]
    public void Options_DocumentedForACommand_AreTheOnesItsHelpLists(string path)
    {
        var command = s_commands.Value[path];
        var byAlias = new Dictionary<string, Option>(StringComparer.Ordinal);
        foreach (var option in command.Options.Where(o => !o.Hidden && !CommonOptions.Contains(o.Name)))
        {
            byAlias[option.Name] = option;
            foreach (var alias in option.Aliases)
            {
                byAlias[alias] = option;
            }
        }

        var documented = DocumentedOptions(path).Where(o => !CommonOptions.Contains(o)).ToList();
        var unknown = documented.Where(o => !byAlias.ContainsKey(o)).Distinct().ToList();
        var undocumented = byAlias.Values.Distinct().Where(o => !documented.Any(d => byAlias.GetValueOrDefault(d) == o)).Select(o => o.Name).ToList();

        Assert.True(unknown.Count == 0 && undocumented.Count == 0,
            $"salvo {path}: in docs/cli.md but not in --help: [{string.Join(", ", unknown)}]; in --help but not in docs/cli.md: [{string.Join(", ", undocumented)}]");
    }

    /// <summary>
    /// The options docs/cli.md gives <paramref name="path"/>: the first cell of each row of an options table (a table whose
    /// first column is "option") under the nearest heading that names the command (`salvo rr`), with a "command" column
    /// naming it or saying "both"; and every option in a code span that starts with the command ("salvo soak -t S [-r N]").
    /// </summary>
    private static IEnumerable<string> DocumentedOptions(string path)
    {
        var pathWords = path.Split(' ');
        var name = pathWords[^1];
        var tops = pathWords[0];
        string[] section = [];
        string[] subsection = [];
        int? commandColumn = null;
        var inOptionTable = false;
        foreach (var line in s_text.Value.Split('\n'))
        {
            if (line.StartsWith("## ", StringComparison.Ordinal))
            {
                section = NamedCommands(line);
                subsection = [];
            }
            else if (line.StartsWith("### ", StringComparison.Ordinal))
            {
                subsection = NamedCommands(line);
            }

            if (!line.StartsWith('|'))
            {
                inOptionTable = false;
                continue;
            }

            var cells = line.Trim().Trim('|').Split(" | ").Select(c => c.Trim()).ToArray();
            if (cells[0] == "option")
            {
                inOptionTable = true;
                commandColumn = Array.IndexOf(cells, "command") is var i and >= 0 ? i : null;
                continue;
            }

            var owners = subsection.Length > 0 ? subsection : section;
            if (!inOptionTable || !owners.Contains(tops) || cells[0].StartsWith("---", StringComparison.Ordinal))
            {
                continue;
            }

            if (commandColumn is { } column)
            {
                var words = Regex.Split(cells[column], @"[^\w-]+");
                if (!words.Contains("both") && !words.Contains(name))
                {
                    continue;
                }
            }
            else if (path.Contains(' ', StringComparison.Ordinal))
            {
                continue;
            }

            foreach (Match span in CodeSpan().Matches(cells[0]))
            {
                var first = span.Groups["text"].Value.Split(' ')[0];
                if (first.StartsWith('-'))
                {
                    yield return first;
                }
            }
        }

        foreach (Match span in CodeSpan().Matches(s_text.Value))
        {
            var words = span.Groups["text"].Value.Split((char[])[' ', '\n', '[', ']'], StringSplitOptions.RemoveEmptyEntries);
            if (words.Length > 1 && words[0] == "salvo" && words.Skip(1).Take(pathWords.Length).SequenceEqual(pathWords) && IsLongestCommandPath(words, path))
            {
                foreach (var word in words.Where(w => w.StartsWith('-')))
                {
                    yield return word;
                }
            }
        }
    }

    // "salvo tunnel up CONFIG" belongs to "tunnel up", not to "tunnel".
    private static bool IsLongestCommandPath(string[] words, string path)
    {
        var next = words.Length > path.Split(' ').Length + 1 ? words[path.Split(' ').Length + 1] : null;
        return next is null || !s_commands.Value[path].Subcommands.Any(c => c.Name == next);
    }

    private static string[] NamedCommands(string heading) =>
        [.. CodeSpan().Matches(heading).Select(m => m.Groups["text"].Value.Split(' ')).Where(w => w.Length > 1 && w[0] == "salvo").Select(w => w[1])];

    [GeneratedRegex("`(?<text>[^`]+)`")]
    private static partial Regex CodeSpan();

    [GeneratedRegex("^```.*?^```", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex WithoutCodeBlocks();
}
