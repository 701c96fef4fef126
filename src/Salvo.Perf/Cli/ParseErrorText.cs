using System.CommandLine;
using System.CommandLine.Parsing;
using System.Text.RegularExpressions;

namespace Salvo.Perf.Cli;

/// <summary>The one line a parse error prints: the parser's messages in the tool's words, and the full command to ask for help.</summary>
internal static partial class ParseErrorText
{
    public static string Format(ParseResult parse)
    {
        var messages = parse.Errors.Select(e => Reword(e.Message)).ToList();
        // "frobnicate" gives both; only the second says what is wrong.
        if (messages.Any(m => m.StartsWith("Unrecognized command or argument", StringComparison.Ordinal)))
        {
            messages.RemoveAll(m => m.StartsWith("Required command was not provided", StringComparison.Ordinal));
        }

        return $"salvo: error: {string.Join(" ", messages)} (see '{CommandPath(parse.CommandResult)} --help')";
    }

    /// <summary>"salvo tunnel up", not "salvo up": every command from the root down.</summary>
    private static string CommandPath(CommandResult command)
    {
        var names = new Stack<string>();
        for (SymbolResult? result = command; result is CommandResult current; result = current.Parent)
        {
            names.Push(current.Parent is null ? "salvo" : current.Command.Name);
        }

        return string.Join(' ', names);
    }

    /// <summary>A value the option's type cannot hold, said without the .NET type: "-t/--time: 'abc' is not a number".</summary>
    private static string Reword(string message)
    {
        var match = CannotParse().Match(message);
        if (!match.Success)
        {
            return message;
        }

        var kind = match.Groups["type"].Value switch
        {
            "System.Double" or "System.Nullable`1[System.Double]" => "a number",
            "System.Int32" or "System.Int64" or "System.Nullable`1[System.Int32]" => "a whole number",
            _ => "a valid value",
        };
        return $"{match.Groups["option"].Value}: '{match.Groups["value"].Value}' is not {kind}.";
    }

    [GeneratedRegex("^Cannot parse argument '(?<value>.*)' for option '(?<option>[^']+)' as expected type '(?<type>[^']+)'")]
    private static partial Regex CannotParse();
}
