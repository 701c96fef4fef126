using System.Text.Json;
using Salvo.Perf.Impair;
using Salvo.Perf.Soak;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>Soak sample series: synthetic ones shaped after real runs (seeded), and recorded ones from Data/.</summary>
internal static class SoakSeries
{
    private const double Mib = 1 << 20;

    /// <summary>
    /// A healthy process as 'salvo soak' sees one, a sample every <paramref name="interval"/> s: the heap after
    /// collection rises from 8 to 14 MiB while the process warms up (time constant <paramref name="warmupSeconds"/>)
    /// and then moves by at most 0.3 MiB; the working set climbs from 40 MiB, 55 MiB at 5 s and 67 MiB at 20 s and still
    /// climbing, as in the run that was called growing (55 -> 64 MiB), and wanders by up to 4 MiB on top;
    /// descriptors come and go with the TCP connections (88-92) and the thread pool adds a thread now and then.
    /// <paramref name="heapLeakPerSecond"/> and <paramref name="handleLeakPerSecond"/> add a leak from the start.
    /// </summary>
    public static SoakSample[] Healthy(double seconds, int seed, double interval = 1, double heapLeakPerSecond = 0, double handleLeakPerSecond = 0, double warmupSeconds = 2)
    {
        var random = new Random(seed);
        var samples = new List<SoakSample>();
        var wander = 0.0;
        for (var t = interval; t <= seconds + 1e-9; t += interval)
        {
            var heap = (8 * Mib) + (6 * Mib * (1 - Math.Exp(-t / warmupSeconds))) + ((random.NextDouble() - 0.5) * 0.3 * Mib) + (heapLeakPerSecond * t);
            wander = Math.Clamp(wander + ((random.NextDouble() - 0.5) * 1.5 * Mib), -4 * Mib, 4 * Mib);
            var workingSet = (40 * Mib) + (26 * Mib * (1 - Math.Exp(-t / 6))) + (8 * Mib * (1 - Math.Exp(-t / 60))) + wander;
            var handles = 88 + random.Next(5) + (int)(handleLeakPerSecond * t);
            var threads = 18 + Math.Min(3, (int)(t / 4)) + random.Next(2);
            samples.Add(new SoakSample(t, (long)workingSet, (long)(heap + (random.NextDouble() * 8 * Mib)), (long)heap, 1, 1, 1, handles, threads,
                new SoakTraffic(0, 0, 0, 0, 0, 0)));
        }

        return [.. samples];
    }

    /// <summary>The samples of a recorded 'salvo soak --json' document in Reliability/Data.</summary>
    public static SoakSample[] Recorded(string file)
    {
        using var document = JsonDocument.Parse(File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "Reliability", "Data", file)));
        return document.RootElement.GetProperty("samples").EnumerateArray()
            .Select(s => s.Deserialize(LabJson.Compact.SoakSample)!)
            .ToArray();
    }
}
