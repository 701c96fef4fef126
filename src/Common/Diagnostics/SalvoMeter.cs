using System.Diagnostics.Metrics;

namespace Salvo.Diagnostics;

/// <summary>
/// The one meter policy of the library, its server and streams, and the tunnel (linked into each assembly, which grant
/// each other no internals): one meter named "Salvo", from the options' <see cref="IMeterFactory"/> when there is one
/// (the factory owns and disposes it), else one process-wide meter that lives as long as the process. Owners never
/// dispose what they get here: observable instruments instead stop reporting when their owner is disposed.
/// </summary>
internal static class SalvoMeter
{
    /// <summary>The meter's name, which dotnet-counters and OpenTelemetry subscribe to.</summary>
    public const string Name = "Salvo";

    /// <summary>
    /// The tag every drop (and every connection close) carries its reason in, a snake_case value such as
    /// <c>queue_full</c>: OpenTelemetry's <c>error.type</c>, so dashboards group drops the way they group other errors.
    /// </summary>
    public const string DropReasonTag = "error.type";

    private static readonly string? s_version = typeof(SalvoMeter).Assembly.GetName().Version?.ToString();

    private static readonly Lazy<Meter> s_shared = new(() => new Meter(Name, s_version));

    /// <summary>The factory's "Salvo" meter, or the process-wide one when <paramref name="factory"/> is null.</summary>
    public static Meter Get(IMeterFactory? factory) =>
        factory?.Create(new MeterOptions(Name) { Version = s_version }) ?? s_shared.Value;
}
