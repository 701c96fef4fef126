using System.Globalization;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// A fact that opens many sockets: skipped, with the reason, where the process may not open the number of files
/// asked for (the soft RLIMIT_NOFILE, as /proc/self/limits shows it; raise it with <c>ulimit -n</c>).
/// </summary>
public sealed class OpenFilesFactAttribute : FactAttribute
{
    public OpenFilesFactAttribute(int needed)
    {
        var limit = SoftLimit();
        if (limit < needed)
        {
            Skip = string.Create(CultureInfo.InvariantCulture, $"Needs {needed} open files; the soft limit is {limit} (ulimit -n).");
        }
    }

    private static long SoftLimit()
    {
        const string path = "/proc/self/limits";
        if (!File.Exists(path))
        {
            return 0;
        }

        // "Max open files            20000                20000                files"
        var line = File.ReadLines(path).FirstOrDefault(l => l.StartsWith("Max open files", StringComparison.Ordinal));
        var soft = line?["Max open files".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries)[0];
        return soft switch
        {
            null => 0,
            "unlimited" => long.MaxValue,
            _ => long.Parse(soft, CultureInfo.InvariantCulture),
        };
    }
}
