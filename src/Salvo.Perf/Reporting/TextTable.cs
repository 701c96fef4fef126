using System.Text;
using Spectre.Console;

namespace Salvo.Perf.Reporting;

/// <summary>A table printed with Spectre.Console on a terminal and as aligned plain text otherwise.</summary>
internal sealed class TextTable(params string[] headers)
{
    private readonly List<string[]> _rows = [];

    /// <summary>Columns (by index) aligned left; the rest align right (numbers).</summary>
    public HashSet<int> LeftAligned { get; } = [0];

    /// <summary>Adds a row; missing cells are blank.</summary>
    public void Add(params string[] cells) => _rows.Add(cells);

    /// <summary>Writes the table to <paramref name="console"/>.</summary>
    public void Write(Cli.CliConsole console)
    {
        if (console.Format != Cli.OutputFormat.Text)
        {
            return;
        }

        if (console.IsLive)
        {
            var table = new Table().Border(TableBorder.Rounded);
            for (var i = 0; i < headers.Length; i++)
            {
                var column = new TableColumn(Markup.Escape(headers[i]));
                table.AddColumn(LeftAligned.Contains(i) ? column.LeftAligned() : column.RightAligned());
            }

            foreach (var row in _rows)
            {
                table.AddRow(Enumerable.Range(0, headers.Length).Select(i => Markup.Escape(i < row.Length ? row[i] : string.Empty)).ToArray());
            }

            AnsiConsole.Write(table);
            return;
        }

        console.Out.Write(ToPlainText());
    }

    /// <summary>The table as aligned plain text.</summary>
    public string ToPlainText()
    {
        var widths = new int[headers.Length];
        foreach (var row in _rows.Prepend(headers))
        {
            for (var i = 0; i < headers.Length; i++)
            {
                widths[i] = Math.Max(widths[i], i < row.Length ? row[i].Length : 0);
            }
        }

        var text = new StringBuilder();
        var line = new StringBuilder();
        foreach (var row in _rows.Prepend(headers))
        {
            line.Clear();
            for (var i = 0; i < headers.Length; i++)
            {
                var cell = i < row.Length ? row[i] : string.Empty;
                line.Append(LeftAligned.Contains(i) ? cell.PadRight(widths[i]) : cell.PadLeft(widths[i]));
                line.Append(i + 1 < headers.Length ? "  " : string.Empty);
            }

            // A left-aligned last column would pad every line to the longest cell (doctor's recommendations: ~260 characters).
            text.Append(line.ToString().TrimEnd(' ')).Append('\n');
        }

        return text.ToString();
    }

    /// <summary>The table as GitHub Markdown.</summary>
    public string ToMarkdown()
    {
        var text = new StringBuilder();
        text.Append("| ").AppendJoin(" | ", headers).Append(" |\n|");
        for (var i = 0; i < headers.Length; i++)
        {
            text.Append(LeftAligned.Contains(i) ? "---|" : "---:|");
        }

        text.Append('\n');
        foreach (var row in _rows)
        {
            text.Append("| ").AppendJoin(" | ", row).Append(" |\n");
        }

        return text.ToString();
    }
}
