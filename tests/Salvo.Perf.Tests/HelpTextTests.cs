using System.CommandLine;
using System.CommandLine.Completions;
using System.Text.RegularExpressions;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests;

public sealed partial class HelpTextTests
{
    private static readonly Type[] NumericTypes = [typeof(int), typeof(long), typeof(ulong), typeof(double), typeof(int?), typeof(double?), typeof(int[])];

    public static TheoryData<string> Commands()
    {
        var data = new TheoryData<string>();
        foreach (var command in Root().Subcommands.Where(c => !c.Hidden))
        {
            data.Add(command.Name);
        }

        return data;
    }

    /// <summary>Every command below the root, as the words that name it ("tunnel up").</summary>
    public static TheoryData<string> VisibleCommands() => Paths(includeHidden: false);

    /// <summary>The same with the hidden ones ('connections shard-client'), whose help prints nothing.</summary>
    public static TheoryData<string> EveryCommandInTheTree() => Paths(includeHidden: true);

    [Theory]
    [MemberData(nameof(VisibleCommands))]
    public async Task Help_AnyCommandInTheTree_ShowsWhatEachValueIsNotTheOptionsOwnName(string path)
    {
        var (exit, output, _) = await Cli.RunAsync([.. path.Split(' '), "--help"]);

        Assert.Equal(0, exit);
        foreach (var line in OptionLines(output))
        {
            var match = OptionAndPlaceholder().Match(line);
            if (match.Success)
            {
                Assert.False(match.Groups["name"].Value == match.Groups["value"].Value, $"raw placeholder in '{path} --help': {line}");
            }
        }
    }

    [Theory]
    [MemberData(nameof(EveryCommandInTheTree))]
    public void Options_AnyCommandInTheTree_NameWhatTheirValueIs(string path)
    {
        foreach (var option in Walk(Root(), includeHidden: true).Single(c => c.Path == path).Command.Options.Where(o => o.ValueType != typeof(bool)))
        {
            // Without a HelpName the parser shows the values it accepts where it knows them ('--mode <TcpOnly|UdpFirst>'),
            // else the option's own name ('--name <name>').
            var named = option.HelpName is not null || option.GetCompletions(CompletionContext.Empty).Any();
            Assert.True(named, $"{path} {option.Name} has no name for its value");
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
    public void Help_EveryNumericOption_StatesTheRangeItAccepts()
    {
        var missing = new List<string>();
        foreach (var (path, command) in Walk(Root(), includeHidden: false))
        {
            foreach (var option in command.Options.Where(o => !o.Hidden && NumericTypes.Contains(o.ValueType)))
            {
                if (!StatedRange().IsMatch(option.Description ?? string.Empty))
                {
                    missing.Add($"{path} {option.Name}: {option.Description}");
                }
            }
        }

        Assert.True(missing.Count == 0, string.Join(Environment.NewLine, missing));
    }

    [Fact]
    public async Task Help_TunnelUp_TakesItsTimeAsEveryOtherCommandDoes()
    {
        var (exit, output, _) = await Cli.RunAsync("tunnel", "up", "--help");

        Assert.Equal(0, exit);
        Assert.Contains("-t, --time <SECONDS>", output, StringComparison.Ordinal);
        Assert.Contains("--name <NAME>", output, StringComparison.Ordinal);
        Assert.DoesNotContain("--duration", output, StringComparison.Ordinal);
    }

    [Fact]
    public void TunnelUp_OldDurationOption_StillParses()
    {
        var parse = Root().Parse(["tunnel", "up", "salvo0.conf", "--duration", "5"]);

        Assert.Empty(parse.Errors);
    }

    [Theory]
    [InlineData("server", "--help")]
    [InlineData("--help")]
    public async Task Help_ServerAndTheTopLevel_SayTheServerAnswersStockIperf3AndSockperfClients(params string[] args)
    {
        var (exit, output, _) = await Cli.RunAsync(args);

        Assert.Equal(0, exit);
        Assert.Contains("stock iperf3", output, StringComparison.Ordinal);
        Assert.Contains("sockperf", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Help_CommandWithARequiredArgument_StillShowsHelp()
    {
        var (exit, output, error) = await Cli.RunAsync("client", "--help");

        Assert.Equal(0, exit);
        Assert.Contains("--bitrate <RATE>", output, StringComparison.Ordinal);
        Assert.Contains("salvo client <HOST>", output, StringComparison.Ordinal);
        Assert.Empty(error);
    }

    private static TheoryData<string> Paths(bool includeHidden)
    {
        var data = new TheoryData<string>();
        foreach (var (path, _) in Walk(Root(), includeHidden))
        {
            data.Add(path);
        }

        return data;
    }

    // One tree for every test that only reads it: building it is most of what these tests cost.
    private static readonly Lazy<Command> s_root = new(() => SalvoCli.Build(new CliConsole(TextWriter.Null, TextWriter.Null, isTerminal: false)));

    internal static Command Root() => s_root.Value;

    /// <summary>Every command below <paramref name="parent"/>, depth first, with the words that name it from the root.</summary>
    internal static IEnumerable<(string Path, Command Command)> Walk(Command parent, bool includeHidden, string prefix = "")
    {
        foreach (var command in parent.Subcommands.Where(c => includeHidden || !c.Hidden))
        {
            var path = prefix.Length == 0 ? command.Name : $"{prefix} {command.Name}";
            yield return (path, command);
            foreach (var child in Walk(command, includeHidden, path))
            {
                yield return child;
            }
        }
    }

    private static IEnumerable<string> OptionLines(string help) =>
        help[help.IndexOf("Options:", StringComparison.Ordinal)..].Split('\n').Skip(1).Where(l => l.StartsWith("  -", StringComparison.Ordinal));

    [GeneratedRegex(@"<[^>]+>")]
    private static partial Regex Placeholder();

    [GeneratedRegex(@"^\s+(?:-\S+, )*--(?<name>[a-z0-9-]+) <(?<value>[^>]+)>")]
    private static partial Regex OptionAndPlaceholder();

    // "1 to 100", "-1 to 1,023", "0 to 10T", or a lower bound alone ("more than 0, at most 86,400").
    [GeneratedRegex(@"-?\d[\d,.]* to -?\d|[Mm]ore than \d")]
    private static partial Regex StatedRange();
}
