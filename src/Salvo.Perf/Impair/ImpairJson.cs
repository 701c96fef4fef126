using System.Text.Json;
using System.Text.Json.Serialization;

namespace Salvo.Perf.Impair;

/// <summary>Source-generated JSON for the impair, soak and transport documents (camelCase; the names are a stable interface).</summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    UseStringEnumConverter = true)]
[JsonSerializable(typeof(ImpairCommandReport))]
[JsonSerializable(typeof(Soak.SoakReport))]
[JsonSerializable(typeof(Soak.SoakSample))]
[JsonSerializable(typeof(Transport.TransportReport))]
[JsonSerializable(typeof(Transport.TransportServeReport))]
internal sealed partial class LabJson : JsonSerializerContext
{
    /// <summary>One line per document (JSON lines).</summary>
    public static LabJson Compact => Default;

    /// <summary>Indented, for --json.</summary>
    public static LabJson Indented => s_indented ??= new(new JsonSerializerOptions(Default.Options) { WriteIndented = true });

    // Built on first use: the generated Default is itself initialised lazily, after this class's static fields.
    private static LabJson? s_indented;
}
