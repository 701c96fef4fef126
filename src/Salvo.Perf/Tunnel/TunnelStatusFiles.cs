using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// What <c>salvo tunnel show</c> reads: the status files running <c>up</c> processes keep, one JSON
/// <see cref="TunnelStatusDocument"/> per interface, rewritten whole every second.
/// </summary>
internal static class TunnelStatusFiles
{
    /// <summary>
    /// A running 'up' rewrites its file every second and deletes it when it ends; one not written for this long was
    /// left by a process that was killed (SIGKILL, a crash), and its tunnel does not run.
    /// </summary>
    internal static readonly TimeSpan StaleAfter = TimeSpan.FromSeconds(5);

    /// <summary>Replaces <paramref name="file"/> at once (a rename), so a reader never sees half a document.</summary>
    public static async Task WriteAsync(string file, TunnelStatusDocument status)
    {
        var next = file + ".next";
        await File.WriteAllTextAsync(next, JsonSerializer.Serialize(status, PerfJson.Compact.TunnelStatusDocument)).ConfigureAwait(false);
        File.Move(next, file, overwrite: true);
    }

    /// <summary>
    /// Every interface's status in name order, or only <paramref name="only"/>'s; nothing when none runs. Asking for
    /// an interface that does not run is an error (exit code 1, as <c>wg show</c>) rather than empty output, so a typo
    /// is not mistaken for a stopped tunnel.
    /// </summary>
    public static IReadOnlyList<TunnelStatusDocument> Read(string folder, string? only)
    {
        var now = DateTime.UtcNow;
        var files = Directory.Exists(folder)
            ? Directory.GetFiles(folder).Where(f => !f.EndsWith(".next", StringComparison.Ordinal) && now - File.GetLastWriteTimeUtc(f) < StaleAfter)
                .Order(StringComparer.Ordinal).ToList()
            : [];
        if (only is not null)
        {
            files = [.. files.Where(f => Path.GetFileName(f) == only)];
            if (files.Count == 0)
            {
                throw new CliException($"show: NAME: no running tunnel '{only}'", CliException.FailureExitCode);
            }
        }

        return [.. files.Select(ReadIfPresent).OfType<TunnelStatusDocument>()];
    }

    /// <summary>An 'up' that stops between the listing and the read deletes its file: that tunnel is simply gone.</summary>
    private static TunnelStatusDocument? ReadIfPresent(string file)
    {
        string text;
        try
        {
            text = File.ReadAllText(file);
        }
        catch (FileNotFoundException)
        {
            return null;
        }

        try
        {
            return JsonSerializer.Deserialize(text, PerfJson.Compact.TunnelStatusDocument)
                ?? throw new JsonException("null document");
        }
        catch (JsonException e)
        {
            throw new CliException($"show: {file} is not a tunnel status document ({e.Message}); was it written by another version of salvo?", CliException.FailureExitCode);
        }
    }
}
