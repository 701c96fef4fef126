namespace Salvo.Perf.Reporting;

/// <summary>
/// The frames an AF_XDP socket took off the wire and dropped, by reason (the kernel's UDP receive checks it makes
/// itself), as the reports print them.
/// </summary>
internal static class FrameDropReport
{
    /// <summary>Every reason with its count, zeros included, so a JSON document has the same keys whatever happened.</summary>
    public static Dictionary<string, long> ByReason(FrameDropCounts drops) =>
        FrameDropCounts.Reasons.ToDictionary(reason => reason.ToString(), reason => drops[reason]);

    /// <summary>"3 (MartianSource 2, BadUdpChecksum 1)", or "0".</summary>
    public static string Describe(FrameDropCounts drops)
    {
        var counted = FrameDropCounts.Reasons.Where(reason => drops[reason] != 0).Select(reason => $"{reason} {Format.Count(drops[reason])}").ToArray();
        return counted.Length == 0 ? "0" : $"{Format.Count(drops.Total)} ({string.Join(", ", counted)})";
    }

    /// <summary>Describes counts given as <see cref="ByReason"/> wrote them (a report that crossed the control channel).</summary>
    public static string Describe(IReadOnlyDictionary<string, long> byReason)
    {
        var counted = byReason.Where(pair => pair.Value != 0).Select(pair => $"{pair.Key} {Format.Count(pair.Value)}").ToArray();
        return counted.Length == 0 ? "0" : $"{Format.Count(byReason.Values.Sum())} ({string.Join(", ", counted)})";
    }
}
