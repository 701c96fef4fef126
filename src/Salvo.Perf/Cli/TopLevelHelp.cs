using System.CommandLine;
using System.Text;

namespace Salvo.Perf.Cli;

/// <summary>
/// 'salvo --help' on one screen: one short line per command instead of each command's whole description
/// (unwrapped, those ran to 600 characters a line); the details stay in each command's own --help and in
/// docs/cli.md.
/// </summary>
internal static class TopLevelHelp
{
    /// <summary>The most lines 'salvo --help' may take: a 40-line terminal, checked by a test.</summary>
    public const int MaxLines = 40;

    /// <summary>The widest line of 'salvo --help': a 120-column terminal, checked by a test.</summary>
    public const int MaxWidth = 120;

    private static readonly Dictionary<string, string> Summaries = new(StringComparer.Ordinal)
    {
        ["loopback"] = "plain .NET sockets against Salvo's batched paths, both ends on loopback",
        ["server"] = "test server for 'salvo client', stock iperf3 and sockperf clients and rr; --echo",
        ["client"] = "iperf3-style UDP test against 'salvo server' or a stock 'iperf3 -s'",
        ["rr"] = "request/response latency percentiles, closed loop or at a fixed rate",
        ["sweep"] = "payload sizes swept, with an HTML report and JSON",
        ["doctor"] = "what limits UDP on this host: sysctls, drops, offloads, backends",
        ["connections"] = "many framed TCP connections: memory per connection, echo rate, latency",
        ["impair"] = "a UDP relay that drops, duplicates, reorders and delays, counting each",
        ["soak"] = "a mixed load that watches memory, descriptors and threads for growth",
        ["transport"] = "UDP-first messaging with TCP fallback, or its echo server",
        ["tunnel"] = "a WireGuard-compatible tunnel: up, show, userspace, keys, bench",
        ["lab"] = "the kernel's UDP path beside AF_XDP and C across two network namespaces",
        ["completion"] = "a shell completion script: source <(salvo completion bash)",
    };

    /// <summary>Replaces the description and the command list of the rendered root help with the short ones.</summary>
    public static string Compact(string rendered, Command root)
    {
        var text = new StringBuilder();
        text.Append("Description:\n  salvo measures UDP on this host; docs/cli.md describes every command, option and output.\n\n");
        var sections = rendered.Replace("\r\n", "\n", StringComparison.Ordinal).Split("\n\n", StringSplitOptions.RemoveEmptyEntries);
        foreach (var section in sections.Where(s => !s.StartsWith("Description:", StringComparison.Ordinal) && !s.StartsWith("Commands:", StringComparison.Ordinal)))
        {
            text.Append(section.TrimEnd('\n')).Append("\n\n");
        }

        var commands = root.Subcommands.Where(c => !c.Hidden).ToList();
        var width = commands.Max(c => c.Name.Length) + 2;
        text.Append("Commands:\n");
        foreach (var command in commands)
        {
            text.Append("  ").Append(command.Name.PadRight(width)).Append(Summary(command)).Append('\n');
        }

        text.Append("\nRun 'salvo COMMAND --help' for a command's options.\n");
        return text.ToString();
    }

    /// <summary>The command's line: its summary, or the first sentence of its description cut to fit.</summary>
    private static string Summary(Command command)
    {
        if (Summaries.TryGetValue(command.Name, out var summary))
        {
            return summary;
        }

        var description = command.Description ?? string.Empty;
        var end = description.IndexOf(". ", StringComparison.Ordinal);
        var sentence = end < 0 ? description : description[..end];
        var room = MaxWidth - 20;
        return sentence.Length <= room ? sentence : string.Concat(sentence.AsSpan(0, room - 3), "...");
    }
}
