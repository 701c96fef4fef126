using System.CommandLine;
using System.Text;

namespace Salvo.Perf.Cli;

/// <summary>
/// <c>salvo completion bash</c>: prints a bash completion script made from the command tree itself, so every
/// command and option it offers is one the parser takes. A script rather than System.CommandLine's [suggest]
/// directive: that one needs the dotnet-suggest global tool on every machine the completion runs on.
/// </summary>
internal static class CompletionCommand
{
    public static Command Create(CliConsole console)
    {
        var shell = new Argument<string>("SHELL") { Description = "The shell to complete for: bash.", HelpName = "SHELL" };
        shell.AcceptOnlyFromAmong("bash");
        var command = new Command("completion",
            "Prints a completion script for the shell; load it with 'source <(salvo completion bash)' or save it in /etc/bash_completion.d/salvo.")
        {
            shell,
        };
        command.SetAction(parse =>
        {
            var root = parse.RootCommandResult.Command;
            console.Out.Write(Bash(root));
            return 0;
        });
        return command;
    }

    /// <summary>The bash script: one case per command path, listing its subcommands and options.</summary>
    public static string Bash(Command root)
    {
        var script = new StringBuilder();
        script.Append("""
            # bash completion for salvo; load with: source <(salvo completion bash)
            _salvo_words()
            {
                case "$1" in

            """.Replace("\r\n", "\n", StringComparison.Ordinal));
        foreach (var (path, command) in Paths(root, string.Empty))
        {
            var words = command.Subcommands.Where(c => !c.Hidden).Select(c => c.Name)
                .Concat(Options(command).SelectMany(o => o.Aliases.Prepend(o.Name)).Where(IsPlainOption))
                .Distinct(StringComparer.Ordinal);
            script.Append(System.Globalization.CultureInfo.InvariantCulture, $"        \"{path}\") echo \"{string.Join(' ', words)}\" ;;\n");
        }

        script.Append("""
                esac
            }

            _salvo()
            {
                local cur="${COMP_WORDS[COMP_CWORD]}" path="" word words
                for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
                    case "$word" in
                        -*) ;;
                        *)
                            words=" $(_salvo_words "$path") "
                            if [[ "$words" == *" $word "* ]]; then
                                path="${path:+$path }$word"
                            fi
                            ;;
                    esac
                done
                COMPREPLY=($(compgen -W "$(_salvo_words "$path")" -- "$cur"))
            }

            complete -F _salvo salvo

            """.Replace("\r\n", "\n", StringComparison.Ordinal));
        return script.ToString();
    }

    /// <summary>
    /// Leaves out the help option's Windows spellings (/h, /?) and -?: bash expands '?' as a pattern in the
    /// completion it offers, so "-?" became the name of any two-character file starting with '-' in the directory.
    /// </summary>
    private static bool IsPlainOption(string name) => name.StartsWith('-') && !name.Contains('?', StringComparison.Ordinal);

    private static IEnumerable<(string Path, Command Command)> Paths(Command command, string path)
    {
        yield return (path, command);
        foreach (var child in command.Subcommands.Where(c => !c.Hidden))
        {
            foreach (var below in Paths(child, path.Length == 0 ? child.Name : $"{path} {child.Name}"))
            {
                yield return below;
            }
        }
    }

    /// <summary>The command's own options and the recursive ones of the root (--json, --help) that apply everywhere.</summary>
    private static IEnumerable<Option> Options(Command command)
    {
        var options = command.Options.Where(o => !o.Hidden).ToList();
        for (var parent = command.Parents.OfType<Command>().FirstOrDefault(); parent is not null; parent = parent.Parents.OfType<Command>().FirstOrDefault())
        {
            options.AddRange(parent.Options.Where(o => o.Recursive && !o.Hidden));
        }

        return options;
    }
}
