using System.CommandLine;
using Salvo.Perf.Cli;
using Salvo.Streams;

namespace Salvo.Perf.Tests;

/// <summary>
/// Every number and enum option of every command refuses a value out of its range while parsing, in the CLI's own
/// words naming the option: never a .NET parameter message from deep inside (`transport --mode -1` printed one, as the
/// runtime's enum parse takes any number).
/// </summary>
public sealed class OptionRangeTests
{
    private static readonly string[] s_dotNetText = ["Parameter", "ArgumentOutOf", "Exception", "System."];

    public static TheoryData<string, string, string> OutOfRange()
    {
        var data = new TheoryData<string, string, string>();
        var root = SalvoCli.Build(new CliConsole(TextWriter.Null, TextWriter.Null, isTerminal: false));
        foreach (var (path, option) in OptionsOf(root, []))
        {
            foreach (var value in BadValues(option.ValueType))
            {
                data.Add(path, option.Name, value);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(OutOfRange))]
    public void NumberOrEnumOption_OutOfRange_RefusedWhileParsingInTheCliWords(string command, string option, string value)
    {
        var root = SalvoCli.Build(new CliConsole(TextWriter.Null, TextWriter.Null, isTerminal: false));
        string[] args = [.. command.Split(' ', StringSplitOptions.RemoveEmptyEntries), option, value];

        var parse = root.Parse(args);

        var text = ParseErrorText.Format(parse);
        var own = parse.Errors.Where(e => e.Message.Contains(option, StringComparison.Ordinal)).ToList();
        Assert.True(own.Count > 0, $"salvo {string.Join(' ', args)}: no error names {option}: {text}");
        foreach (var word in s_dotNetText)
        {
            Assert.DoesNotContain(word, text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Transport_ModeMinusOne_SaysTheAllowedModes()
    {
        var (exit, output, error) = await Cli.RunAsync("transport", "127.0.0.1:9", "--mode", "-1");

        Assert.Equal(2, exit);
        Assert.Empty(output);
        Assert.Contains("--mode: '-1' is not one of UdpFirst, UdpOnly, TcpOnly.", error, StringComparison.Ordinal);
        Assert.DoesNotContain("Parameter", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("tcponly", TransportMode.TcpOnly)]
    [InlineData("UdpOnly", TransportMode.UdpOnly)]
    public void Transport_ModeByName_AnyCase(string text, TransportMode expected)
    {
        var root = SalvoCli.Build(new CliConsole(TextWriter.Null, TextWriter.Null, isTerminal: false));
        var parse = root.Parse(["transport", "127.0.0.1:9", "--mode", text]);

        Assert.Empty(parse.Errors);
        var mode = parse.CommandResult.Command.Options.OfType<Option<TransportMode>>().Single();
        Assert.Equal(expected, parse.GetValue(mode));
    }

    private static IEnumerable<(string Path, Option Option)> OptionsOf(Command command, string[] path)
    {
        foreach (var option in command.Options)
        {
            var type = Nullable.GetUnderlyingType(option.ValueType) ?? option.ValueType;
            if (type.IsEnum || type == typeof(int) || type == typeof(long) || type == typeof(ulong) || type == typeof(double))
            {
                yield return (string.Join(' ', path), option);
            }
        }

        foreach (var sub in command.Subcommands)
        {
            foreach (var found in OptionsOf(sub, [.. path, sub.Name]))
            {
                yield return found;
            }
        }
    }

    /// <summary>Values no option of that type takes: below every minimum, past the type, not a number.</summary>
    private static string[] BadValues(Type valueType)
    {
        var type = Nullable.GetUnderlyingType(valueType) ?? valueType;
        return type.IsEnum ? ["-1", "7", "bogus"]
            : type == typeof(double) ? ["-1e300", "1e309", "NaN"]
            : ["-2147483648", "99999999999999999999999", "x"];
    }
}
