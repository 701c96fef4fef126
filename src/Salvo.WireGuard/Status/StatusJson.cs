using System.Text.Json;
using System.Text.Json.Serialization;

namespace Salvo.WireGuard.Status;

/// <summary>
/// Source-generated JSON of the status files and of <c>show --json</c> (camelCase names, the same document salvo
/// printed; a stable interface, asserted by tests). Nothing is reflected on, so a native build serializes it too.
/// </summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(TunnelStatusDocument))]
[JsonSerializable(typeof(IReadOnlyList<TunnelStatusDocument>))]
internal sealed partial class StatusJson : JsonSerializerContext
{
    /// <summary>One line per document: the status files.</summary>
    public static StatusJson Compact => Default;

    /// <summary>Indented, for show --json.</summary>
    public static StatusJson Indented => s_indented ??= new(new JsonSerializerOptions(Default.Options) { WriteIndented = true });

    // Built on first use: the generated Default is itself initialised lazily, after this class's static fields.
    private static StatusJson? s_indented;
}
