using System.Text.Json.Serialization.Metadata;
using Spectre.Console;

namespace Salvo.Perf.Cli;

/// <summary>How a command prints: human text (live when on a terminal), one JSON document, or JSON lines.</summary>
internal enum OutputFormat
{
    /// <summary>Tables and lines for people.</summary>
    Text,

    /// <summary>One JSON document at the end (--json).</summary>
    Json,

    /// <summary>Newline-delimited JSON events while running, the last one the summary (--json-stream).</summary>
    JsonStream,
}

/// <summary>Where a command writes. Tests pass string writers; the program passes the console.</summary>
internal sealed class CliConsole(TextWriter output, TextWriter error, bool isTerminal)
{
    /// <summary>The real console; live displays only when stdout is a terminal.</summary>
    public static CliConsole Standard() => new(Console.Out, Console.Error, !Console.IsOutputRedirected && AnsiConsole.Profile.Capabilities.Interactive)
    {
        OutputDescriptor = 1,
    };

    /// <summary>The file descriptor <see cref="Out"/> writes to (1 for the real console), or null when it is not one (a test's writer).</summary>
    public int? OutputDescriptor { get; init; }

    /// <summary>Standard output.</summary>
    public TextWriter Out { get; } = output;

    /// <summary>Standard error.</summary>
    public TextWriter Error { get; } = error;

    /// <summary>Whether stdout is an interactive terminal (live progress and colour allowed).</summary>
    public bool IsTerminal { get; } = isTerminal;

    /// <summary>The format chosen for this command.</summary>
    public OutputFormat Format { get; set; }

    /// <summary>Whether a live Spectre display may be drawn.</summary>
    public bool IsLive => IsTerminal && Format == OutputFormat.Text;

    /// <summary>Writes a human line (text format only).</summary>
    public void Line(string text)
    {
        if (Format == OutputFormat.Text)
        {
            Out.WriteLine(text);
        }
    }

    /// <summary>Writes a note to stderr (any format; stdout stays machine-readable).</summary>
    public void Note(string text) => Error.WriteLine(text);

    /// <summary>Writes one JSON event line (json-stream format only).</summary>
    public void Event<T>(T value, JsonTypeInfo<T> type)
    {
        if (Format == OutputFormat.JsonStream)
        {
            Out.WriteLine(global::System.Text.Json.JsonSerializer.Serialize(value, type));
            Out.Flush();
        }
    }

    /// <summary>
    /// Writes one document of a command that prints one per event (server: one per test) as one compact line for
    /// both --json and --json-stream (JSON Lines): indented documents back to back are not one JSON document and
    /// no line-based reader can split them.
    /// </summary>
    public void Record<T>(T value, JsonTypeInfo<T> compact)
    {
        if (Format != OutputFormat.Text)
        {
            Out.WriteLine(global::System.Text.Json.JsonSerializer.Serialize(value, compact));
            Out.Flush();
        }
    }

    /// <summary>Writes the final document: indented for --json, one line for --json-stream.</summary>
    public void Document<T>(T value, JsonTypeInfo<T> indented, JsonTypeInfo<T> compact)
    {
        if (Format == OutputFormat.Json)
        {
            Out.WriteLine(global::System.Text.Json.JsonSerializer.Serialize(value, indented));
        }
        else if (Format == OutputFormat.JsonStream)
        {
            Out.WriteLine(global::System.Text.Json.JsonSerializer.Serialize(value, compact));
        }
    }
}
