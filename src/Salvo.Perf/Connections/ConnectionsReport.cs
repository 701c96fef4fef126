using System.Text.Json.Serialization;
using Salvo.Perf.Measurement;

namespace Salvo.Perf.Connections;

/// <summary>The settings of one <c>salvo connections</c> run.</summary>
/// <param name="Count">Connections to open.</param>
/// <param name="Active">How many of them send.</param>
/// <param name="RatePerSecond">Messages per second from all active connections together.</param>
/// <param name="DurationSeconds">Length of the traffic phase.</param>
/// <param name="MinMessageBytes">Smallest message.</param>
/// <param name="MaxMessageBytes">Largest message.</param>
/// <param name="Framing">length or stx.</param>
/// <param name="SourceAddresses">Loopback addresses the clients connect from: one 127.0.0.x per client process, or ::1 for all.</param>
/// <param name="InlineCompletions">Server processes run socket completions on the runtime's epoll threads.</param>
/// <param name="Client">The load generator: epoll or salvo.</param>
/// <param name="Batch">Messages a client writes to one connection together, in one send.</param>
/// <param name="Server">The echo server measured: salvo (<see cref="Salvo.Streams.StreamServer"/>) or plain (the usual .NET async loop).</param>
/// <param name="SettleSeconds">After the traffic, the most seconds the clients wait for echoes still in flight.</param>
/// <param name="Address">The servers' loopback address (-B): 127.0.0.1 or ::1.</param>
internal sealed record ConnectionsSettings(
    int Count,
    int Active,
    double RatePerSecond,
    double DurationSeconds,
    int MinMessageBytes,
    int MaxMessageBytes,
    string Framing,
    int SourceAddresses,
    bool InlineCompletions,
    string Client,
    int Batch,
    string Server,
    double SettleSeconds,
    string Address);

/// <summary>What the run measured. Memory figures are the server processes' (what a server pays per connection).</summary>
/// <param name="ServerProcesses">Server processes sharing the port (and as many client processes).</param>
/// <param name="Connected">Connections the clients established.</param>
/// <param name="ConnectFailures">Connections that failed to establish.</param>
/// <param name="ConnectSeconds">Time to establish all of them.</param>
/// <param name="ServerConnections">Connections the servers held when measured idle.</param>
/// <param name="MessagesSent">Messages the clients queued in the traffic phase.</param>
/// <param name="MessagesEchoed">Messages that came back from the servers, during the traffic or the settle time after it.</param>
/// <param name="MessagesUnanswered">Messages sent whose echo had not come back when the clients stopped waiting (in flight, with no settle time).</param>
/// <param name="MessagesPerSecond">Messages echoed within the traffic phase, per second of it.</param>
/// <param name="SendsRefused">Sends refused because a connection's queue was full (backpressure).</param>
/// <param name="Latency">Round-trip latency of echoed messages: the client process with the highest p99.</param>
/// <param name="Baseline">Server memory before any connection.</param>
/// <param name="Idle">Server memory with all connections open and idle.</param>
/// <param name="AfterTraffic">Server memory after the traffic phase, connections still open and idle again.</param>
/// <param name="ManagedBytesPerIdleConnection">Server managed bytes per idle connection.</param>
/// <param name="WorkingSetBytesPerIdleConnection">Server resident bytes per idle connection (managed, native and kernel-visible user memory).</param>
/// <param name="PinnedBytes">Pinned pool bytes (slabs) of the servers after the traffic phase.</param>
/// <param name="RentedBlocksWhenIdle">Pool blocks held by idle connections (0: idle connections hold no buffer).</param>
/// <param name="ServerClosedByReason">Server-side closes by reason (expected: none during the run).</param>
/// <param name="ServerCpuMicrosecondsPerMessage">Server processes' CPU time (user + system) from the idle measurement to the one after traffic, per echoed message.</param>
/// <param name="ClientConnectionsClosed">Client connections that closed during the traffic (expected: none).</param>
/// <param name="MalformedEchoes">Of those, how many the client closed because an echo did not decode (expected: none).</param>
/// <param name="ServersWithInlineCompletions">Server processes that saw the inline-completions switch set (all or none).</param>
/// <param name="ClientCpuMicrosecondsPerMessage">Client processes' CPU time during the traffic phase, per echoed message (sending, receiving the echo, timing it).</param>
internal sealed record ConnectionsResult(
    int ServerProcesses,
    int Connected,
    int ConnectFailures,
    double ConnectSeconds,
    int ServerConnections,
    long MessagesSent,
    long MessagesEchoed,
    long MessagesUnanswered,
    double MessagesPerSecond,
    long SendsRefused,
    LatencySummary? Latency,
    MemorySnapshot Baseline,
    MemorySnapshot Idle,
    MemorySnapshot AfterTraffic,
    double ManagedBytesPerIdleConnection,
    double WorkingSetBytesPerIdleConnection,
    long PinnedBytes,
    long RentedBlocksWhenIdle,
    IReadOnlyDictionary<string, long> ServerClosedByReason,
    double ServerCpuMicrosecondsPerMessage,
    double ClientCpuMicrosecondsPerMessage,
    long ClientConnectionsClosed,
    long MalformedEchoes,
    int ServersWithInlineCompletions);

/// <summary>The <c>salvo connections</c> JSON document.</summary>
internal sealed record ConnectionsReport(string Command, EnvironmentInfo Environment, ConnectionsSettings Settings, ConnectionsResult Result)
{
    /// <summary>Below this share of the asked rate, the run measured a lighter load than the one asked for.</summary>
    public const double ReachedPercent = 95;

    /// <summary>Messages echoed per second as a percentage of <see cref="ConnectionsSettings.RatePerSecond"/>; null when no traffic was asked for.</summary>
    public double? AchievedPercentOfRate => Settings.RatePerSecond > 0 ? 100 * Result.MessagesPerSecond / Settings.RatePerSecond : null;

    /// <summary>Whether fewer than <see cref="ReachedPercent"/> % of the asked messages per second were echoed.</summary>
    public bool RateNotReached => AchievedPercentOfRate < ReachedPercent;
}

/// <summary>Source-generated JSON for <see cref="ConnectionsReport"/> (camelCase; stable names).</summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    WriteIndented = true,
    NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals)]
[JsonSerializable(typeof(ConnectionsReport))]
internal sealed partial class ConnectionsJson : JsonSerializerContext;
