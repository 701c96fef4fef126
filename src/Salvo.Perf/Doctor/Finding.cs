using System.Text.Json.Serialization;

namespace Salvo.Perf.Doctor;

/// <summary>How a finding bears on UDP performance.</summary>
internal enum FindingStatus
{
    /// <summary>Fine as it is.</summary>
    [JsonStringEnumMemberName("ok")]
    Ok,

    /// <summary>Likely to limit throughput or lose datagrams; see the recommendation.</summary>
    [JsonStringEnumMemberName("warn")]
    Warn,

    /// <summary>Worth knowing; no action needed.</summary>
    [JsonStringEnumMemberName("info")]
    Info,
}

/// <summary>One thing doctor looked at.</summary>
/// <param name="Check">What was checked (a sysctl name, a probe, an interface).</param>
/// <param name="Status">ok, warn or info.</param>
/// <param name="Value">What was found.</param>
/// <param name="Recommendation">What to do about it, or null.</param>
internal sealed record Finding(string Check, FindingStatus Status, string Value, string? Recommendation = null);

/// <summary>The JSON document of <c>salvo doctor --json</c>.</summary>
/// <param name="Command">"doctor".</param>
/// <param name="Environment">Where it ran.</param>
/// <param name="Findings">Everything checked.</param>
internal sealed record DoctorReport(string Command, Measurement.EnvironmentInfo Environment, IReadOnlyList<Finding> Findings);
