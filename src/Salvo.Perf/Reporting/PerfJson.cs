using System.Text.Json;
using System.Text.Json.Serialization;
using Salvo.Perf.Loopback;

namespace Salvo.Perf.Reporting;

/// <summary>
/// Source-generated JSON for every document the CLI prints (camelCase names; these names are a stable
/// interface, asserted by tests).
/// </summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    UseStringEnumConverter = true)]
[JsonSerializable(typeof(LoopbackReport))]
[JsonSerializable(typeof(LoopbackPointEvent))]
[JsonSerializable(typeof(Doctor.DoctorReport))]
[JsonSerializable(typeof(Rr.RrReport))]
[JsonSerializable(typeof(Rr.RrIntervalEvent))]
[JsonSerializable(typeof(TestServer.Traffic.ControlMessage))]
[JsonSerializable(typeof(TestServer.Traffic.TrafficIntervalEvent))]
[JsonSerializable(typeof(TestServer.Traffic.ClientReport))]
[JsonSerializable(typeof(TestServer.Traffic.ServerTestReport))]
[JsonSerializable(typeof(TestServer.Echo.EchoTotalsReport))]
[JsonSerializable(typeof(Sweep.SweepReport))]
[JsonSerializable(typeof(Tunnel.TunnelBenchReport))]
[JsonSerializable(typeof(Lab.LabReport))]
internal sealed partial class PerfJson : JsonSerializerContext
{
    /// <summary>One line per document (JSON lines).</summary>
    public static PerfJson Compact => Default;

    /// <summary>Indented, for --json.</summary>
    public static PerfJson Indented => s_indented ??= new(new JsonSerializerOptions(Default.Options) { WriteIndented = true });

    // Built on first use: the generated Default is itself initialised lazily, after this class's static fields.
    private static PerfJson? s_indented;
}
