using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Invocation;
using System.Text.RegularExpressions;

namespace Salvo.Perf.Cli;

/// <summary>
/// --help that shows each default once. Every option's description already ends with "Defaults to ..."
/// (the house rule, and the only place a default can be said in words: "serve until Ctrl+C", "any
/// address"), and the parser appends its own "[default: ...]" for every option with a default value;
/// System.CommandLine 2.0.0 keeps the help builder's per-option customization internal, so that label is
/// taken off the rendered text. Help is rendered unwrapped, one line per option, so the label is always
/// whole at the end of its line.
/// </summary>
internal static partial class HelpText
{
    /// <summary>The --help option for the root command.</summary>
    public static HelpOption Option() => new() { Action = new WithoutDefaultLabels(new HelpAction { MaxWidth = int.MaxValue }) };

    /// <summary>Help text with the parser's " [default: ...]" labels removed from line ends.</summary>
    public static string WithoutDefaultLabel(string help) => DefaultLabel().Replace(help, string.Empty);

    [GeneratedRegex(@" \[default: [^\]\n]*\](?=\r?$)", RegexOptions.Multiline | RegexOptions.CultureInvariant)]
    private static partial Regex DefaultLabel();

    private sealed class WithoutDefaultLabels(HelpAction inner) : SynchronousCommandLineAction
    {
        // As the parser's own help: 'salvo client --help' shows help although HOST is missing.
        public override bool ClearsParseErrors => true;

        public override int Invoke(ParseResult parseResult)
        {
            var configuration = parseResult.InvocationConfiguration;
            var output = configuration.Output;
            using var rendered = new StringWriter();
            configuration.Output = rendered;
            try
            {
                inner.Invoke(parseResult);
            }
            finally
            {
                configuration.Output = output;
            }

            var help = WithoutDefaultLabel(rendered.ToString());
            var command = parseResult.CommandResult.Command;
            output.Write(command.Parents.Any() ? help : TopLevelHelp.Compact(help, command));
            return 0;
        }
    }
}
