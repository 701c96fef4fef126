using System.Text.Json;


using Salvo.WireGuard.Linux;

namespace Salvo.WireGuard.Status;

/// <summary>
/// What <c>wireguard-salvo show</c> reads: the status files running <c>up</c> processes keep, one JSON
/// <see cref="TunnelStatusDocument"/> per interface, rewritten whole every second.
/// </summary>
internal static class TunnelStatusFiles
{
    /// <summary>
    /// A running 'up' rewrites its file every second and deletes it when it ends; one not written for this long was
    /// left by a process that was killed (SIGKILL, a crash), and its tunnel does not run.
    /// </summary>
    internal static readonly TimeSpan StaleAfter = TimeSpan.FromSeconds(5);

    /// <summary>
    /// Replaces <paramref name="name"/>'s file in <paramref name="directory"/> at once (<see cref="StatusDirectory.Write"/>);
    /// null when written, else why not.
    /// </summary>
    public static string? Write(StatusDirectory directory, string name, TunnelStatusDocument status) =>
        directory.Write(name, JsonSerializer.SerializeToUtf8Bytes(status, StatusJson.Compact.TunnelStatusDocument));

    /// <summary>A file being written (<see cref="StatusDirectory.TemporaryMark"/>), or one an older 'up' wrote before its rename.</summary>
    private static bool IsStatus(string file) =>
        !Path.GetFileName(file).StartsWith(StatusDirectory.TemporaryMark) && !file.EndsWith(".next", StringComparison.Ordinal);

    /// <summary>
    /// Every interface's status in name order, or only <paramref name="only"/>'s; nothing when none runs. Asking for
    /// an interface that does not run is an error (exit code 1, as <c>wg show</c>) rather than empty output, so a typo
    /// is not mistaken for a stopped tunnel.
    /// </summary>
    public static IReadOnlyList<TunnelStatusDocument> Read(string folder, string? only)
    {
        var now = DateTime.UtcNow;
        var files = Directory.Exists(folder)
            ? Directory.GetFiles(folder).Where(f => IsStatus(f) && now - File.GetLastWriteTimeUtc(f) < StaleAfter)
                .Order(StringComparer.Ordinal).ToList()
            : [];
        if (only is not null)
        {
            files = [.. files.Where(f => Path.GetFileName(f) == only)];
            if (files.Count == 0)
            {
                throw new DaemonException($"show: IFACE: no running tunnel '{only}'", DaemonException.FailureExitCode);
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
            return JsonSerializer.Deserialize(text, StatusJson.Compact.TunnelStatusDocument)
                ?? throw new JsonException("null document");
        }
        catch (JsonException e)
        {
            throw new DaemonException($"show: {file} is not a tunnel status document ({e.Message}); was it written by another version of wireguard-salvo?", DaemonException.FailureExitCode);
        }
    }
}
