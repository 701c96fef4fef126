using System.Globalization;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Measurement;

/// <summary>
/// The kernel's system-wide UDP counters from /proc/net/snmp (a "Udp:" header line of names followed by a
/// "Udp:" line of values). System-wide: other programs' drops count too.
/// </summary>
internal static class UdpSnmp
{
    /// <summary>The Udp counters by name (InDatagrams, NoPorts, InErrors, RcvbufErrors, SndbufErrors, ...), or empty.</summary>
    public static IReadOnlyDictionary<string, long> Read()
    {
        return ProcFiles.NetSnmp() is { } text ? Parse(text.Split('\n')) : new Dictionary<string, long>();
    }

    /// <summary>One counter, or null when the file or the counter is missing.</summary>
    public static long? ReadCounter(string name) => Read().TryGetValue(name, out var value) ? value : null;

    /// <summary>Parses the text of /proc/net/snmp.</summary>
    public static Dictionary<string, long> Parse(IReadOnlyList<string> lines)
    {
        var counters = new Dictionary<string, long>(StringComparer.Ordinal);
        for (var i = 0; i + 1 < lines.Count; i++)
        {
            if (!lines[i].StartsWith("Udp:", StringComparison.Ordinal) || !lines[i + 1].StartsWith("Udp:", StringComparison.Ordinal))
            {
                continue;
            }

            var names = lines[i].Split(' ', StringSplitOptions.RemoveEmptyEntries);
            var values = lines[i + 1].Split(' ', StringSplitOptions.RemoveEmptyEntries);
            for (var j = 1; j < Math.Min(names.Length, values.Length); j++)
            {
                if (long.TryParse(values[j], NumberStyles.Integer, CultureInfo.InvariantCulture, out var value))
                {
                    counters[names[j]] = value;
                }
            }

            break;
        }

        return counters;
    }
}
