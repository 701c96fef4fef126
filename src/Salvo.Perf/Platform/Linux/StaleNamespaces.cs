using System.Diagnostics;
using System.Globalization;

namespace Salvo.Perf.Platform.Linux;

/// <summary>
/// Network namespaces a salvo run names "PREFIX&lt;pid&gt;-…" after its own process: those whose process no longer runs
/// were left by a run that was killed before its clean-up (SIGKILL, a second Ctrl+C) and are removed with the
/// processes still inside them.
/// </summary>
internal static class StaleNamespaces
{
    /// <summary>Removes the namespaces named <paramref name="prefix"/>&lt;pid&gt;-… of dead processes; returns those owners' ids.</summary>
    public static IReadOnlyList<string> Remove(string prefix)
    {
        var owners = new List<string>();
        var (_, list) = ChildProcess.Run("ip", ["netns", "list"]);
        foreach (var name in list.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(line => line.Split(' ')[0]))
        {
            var owner = name.StartsWith(prefix, StringComparison.Ordinal) ? name[prefix.Length..].Split('-')[0] : null;
            if (owner is null || !int.TryParse(owner, NumberStyles.None, CultureInfo.InvariantCulture, out _) || ProcFiles.ProcessExists(owner))
            {
                continue;
            }

            var (_, pids) = ChildProcess.Run("ip", ["netns", "pids", name]);
            foreach (var pid in pids.Split('\n', StringSplitOptions.RemoveEmptyEntries))
            {
                try
                {
                    using var leftover = Process.GetProcessById(int.Parse(pid, CultureInfo.InvariantCulture));
                    leftover.Kill();
                    leftover.WaitForExit(5_000);
                }
                catch (ArgumentException)
                {
                }
            }

            ChildProcess.Run("ip", ["netns", "del", name]);
            if (!owners.Contains(owner))
            {
                owners.Add(owner);
            }
        }

        return owners;
    }
}
