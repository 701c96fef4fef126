using Salvo.Perf.Cli;

namespace Salvo.Perf.Tunnel;

/// <summary>What <c>salvo tunnel show</c> prints: the status files running <c>up</c> processes keep, one per interface.</summary>
internal static class TunnelStatusFiles
{
    /// <summary>
    /// A running 'up' rewrites its file every second and deletes it when it ends; one not written for this long was
    /// left by a process that was killed (SIGKILL, a crash), and its tunnel does not run.
    /// </summary>
    internal static readonly TimeSpan StaleAfter = TimeSpan.FromSeconds(5);

    /// <summary>
    /// Every interface's status in name order, or only <paramref name="only"/>'s; nothing when none runs. Asking for
    /// an interface that does not run is an error (exit code 1, as <c>wg show</c>) rather than empty output, so a typo
    /// is not mistaken for a stopped tunnel.
    /// </summary>
    public static string Read(string folder, string? only)
    {
        var now = DateTime.UtcNow;
        var files = Directory.Exists(folder)
            ? Directory.GetFiles(folder).Where(f => now - File.GetLastWriteTimeUtc(f) < StaleAfter).Order(StringComparer.Ordinal).ToList()
            : [];
        if (only is not null)
        {
            files = [.. files.Where(f => Path.GetFileName(f) == only)];
            if (files.Count == 0)
            {
                throw new CliException($"show: NAME: no running tunnel '{only}'", CliException.FailureExitCode);
            }
        }

        return string.Concat(files.Select(ReadIfPresent));
    }

    /// <summary>An 'up' that stops between the listing and the read deletes its file: that tunnel is simply gone.</summary>
    private static string ReadIfPresent(string file)
    {
        try
        {
            return File.ReadAllText(file);
        }
        catch (FileNotFoundException)
        {
            return string.Empty;
        }
    }
}
