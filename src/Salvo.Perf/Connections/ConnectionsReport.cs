using System.Text.Json.Serialization;
using Salvo.Perf.Measurement;

namespace Salvo.Perf.Connections;

/// <summary>The settings of one <c>salvo connections</c> run.</summary>
internal sealed record ConnectionsSettings(
    int Count,
    int Active,
    double RatePerSecond,
    double DurationSeconds,
    int MinMessageBytes,
    int MaxMessageBytes,
    string Framing,
    int SourceAddresses);

/// <summary>What the run measured.</summary>
/// <param name="Connected">Connections established (each has a client end and a server end in this process).</param>
/// <param name="ConnectFailures">Connections that failed to establish.</param>
/// <param name="ConnectSeconds">Time to establish all of them.</param>
/// <param name="DescriptorLimit">The open-file limit in force.</param>
/// <param name="MessagesSent">Messages the clients queued in the traffic phase.</param>
/// <param name="MessagesEchoed">Messages that came back from the server.</param>
/// <param name="MessagesPerSecond">Echoed messages per second.</param>
/// <param name="SendsRefused">Sends refused because a connection's queue was full (backpressure).</param>
/// <param name="Latency">Round-trip latency of echoed messages.</param>
/// <param name="Baseline">Memory before any connection.</param>
/// <param name="Idle">Memory with all connections open and idle.</param>
/// <param name="AfterTraffic">Memory after the traffic phase, connections still open and idle again.</param>
/// <param name="ManagedBytesPerIdleConnection">Managed bytes per idle connection, both ends together.</param>
/// <param name="WorkingSetBytesPerIdleConnection">Resident bytes per idle connection, both ends together.</param>
/// <param name="PinnedBytes">Pinned pool bytes (slabs) of both ends after the traffic phase.</param>
/// <param name="RentedBlocksWhenIdle">Pool blocks held by idle connections (0: idle connections hold no buffer).</param>
/// <param name="ServerClosedByReason">Server-side closes by reason (expected: none during the run).</param>
internal sealed record ConnectionsResult(
    int Connected,
    int ConnectFailures,
    double ConnectSeconds,
    long DescriptorLimit,
    long MessagesSent,
    long MessagesEchoed,
    double MessagesPerSecond,
    long SendsRefused,
    LatencySummary Latency,
    MemorySnapshot Baseline,
    MemorySnapshot Idle,
    MemorySnapshot AfterTraffic,
    double ManagedBytesPerIdleConnection,
    double WorkingSetBytesPerIdleConnection,
    long PinnedBytes,
    long RentedBlocksWhenIdle,
    IReadOnlyDictionary<string, long> ServerClosedByReason);

/// <summary>The <c>salvo connections</c> JSON document.</summary>
internal sealed record ConnectionsReport(string Command, EnvironmentInfo Environment, ConnectionsSettings Settings, ConnectionsResult Result);

/// <summary>Source-generated JSON for <see cref="ConnectionsReport"/> (camelCase; stable names).</summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    WriteIndented = true,
    NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals)]
[JsonSerializable(typeof(ConnectionsReport))]
internal sealed partial class ConnectionsJson : JsonSerializerContext;
