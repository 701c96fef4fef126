using System.Text.RegularExpressions;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests;

public sealed partial class HelpTextTests
{
    public static TheoryData<string> Commands()
    {
        var data = new TheoryData<string>();
        foreach (var command in SalvoCli.Build(new CliConsole(TextWriter.Null, TextWriter.Null, isTerminal: false)).Subcommands.Where(c => !c.Hidden))
        {
            data.Add(command.Name);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task Help_EveryOption_ShowsWhatItsValueIsNotItsOwnName(string command)
    {
        var (exit, output, _) = await Cli.RunAsync(command, "--help");

        Assert.Equal(0, exit);
        var lines = OptionLines(output).ToList();
        Assert.NotEmpty(lines);
        foreach (var line in lines)
        {
            var match = OptionAndPlaceholder().Match(line);
            if (match.Success)
            {
                Assert.False(match.Groups["name"].Value == match.Groups["value"].Value, $"raw placeholder: {line}");
            }
        }
    }

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task Help_EveryDefault_AppearsOnce(string command)
    {
        var (exit, output, _) = await Cli.RunAsync(command, "--help");

        Assert.Equal(0, exit);
        Assert.DoesNotContain("[default:", output, StringComparison.Ordinal);
        foreach (var line in OptionLines(output).Where(l => !l.Contains("--help", StringComparison.Ordinal) && !l.Contains("--version", StringComparison.Ordinal)))
        {
            Assert.True(Regex.Count(line, "Defaults to ") == 1, $"not one 'Defaults to': {line}");
        }
    }

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task Help_UsageLine_NamesTheArgumentsItsArgumentsSectionLists(string command)
    {
        var (exit, output, _) = await Cli.RunAsync(command, "--help");

        Assert.Equal(0, exit);
        var lines = output.Split('\n');
        var usage = lines.SkipWhile(l => !l.StartsWith("Usage:", StringComparison.Ordinal)).Skip(1).First();
        var inUsage = Placeholder().Matches(usage).Select(m => m.Value).ToList();
        var listed = lines
            .SkipWhile(l => !l.StartsWith("Arguments:", StringComparison.Ordinal)).Skip(1)
            .TakeWhile(l => l.StartsWith("  ", StringComparison.Ordinal))
            .Select(l => Placeholder().Match(l).Value)
            .ToList();
        Assert.Equal(listed, inUsage);
    }

    [Fact]
    public async Task Help_CommandWithARequiredArgument_StillShowsHelp()
    {
        var (exit, output, error) = await Cli.RunAsync("client", "--help");

        Assert.Equal(0, exit);
        Assert.Contains("--bitrate <RATE>", output, StringComparison.Ordinal);
        Assert.Empty(error);
    }

    private static IEnumerable<string> OptionLines(string help) =>
        help[help.IndexOf("Options:", StringComparison.Ordinal)..].Split('\n').Skip(1).Where(l => l.StartsWith("  -", StringComparison.Ordinal));

    [GeneratedRegex(@"<[^>]+>")]
    private static partial Regex Placeholder();

    [GeneratedRegex(@"^\s+(?:-\S+, )?--(?<name>[a-z-]+) <(?<value>[^>]+)>")]
    private static partial Regex OptionAndPlaceholder();
}
