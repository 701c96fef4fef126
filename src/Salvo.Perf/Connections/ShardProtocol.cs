using System.Text.Json.Serialization;

namespace Salvo.Perf.Connections;

/// <summary>
/// How <c>salvo connections</c> talks to its shard processes: one line per message on the shard's
/// standard input (commands) and standard output (replies), a keyword then JSON.
/// </summary>
internal static class ShardProtocol
{
    public const string Ready = "ready";
    public const string Connected = "connected";
    public const string Memory = "memory";
    public const string Result = "result";
    public const string Measure = "measure";
    public const string Go = "go";
    public const string Quit = "quit";
}

/// <summary>
/// A server shard's memory and connections, the CPU time it had used when asked (read before the collection), and
/// whether it runs with the runtime's inline socket completions.
/// </summary>
internal sealed record ServerShardMemory(
    int Connections, MemorySnapshot Memory, long PinnedBytes, long RentedBlocks, IReadOnlyDictionary<string, long> ClosedByReason, double CpuSeconds, bool InlineCompletions);

/// <summary>A client shard's connect outcome.</summary>
internal sealed record ClientShardConnected(int Connected, int Failures, double Seconds);

/// <summary>
/// A client shard's traffic outcome: messages sent, echoed (during the traffic and the settle time after it; of those, in
/// the traffic's <c>Seconds</c>) and refused, connections that closed and, of those, how many this side closed because
/// an echo did not decode; and the CPU time the process used.
/// </summary>
internal sealed record ClientShardResult(
    long Sent, long Echoed, long EchoedInWindow, long Refused, long Closed, long Malformed, double Seconds, Measurement.LatencySummary Latency, double CpuSeconds);

/// <summary>JSON for the shard messages.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals)]
[JsonSerializable(typeof(ServerShardMemory))]
[JsonSerializable(typeof(ClientShardConnected))]
[JsonSerializable(typeof(ClientShardResult))]
[JsonSerializable(typeof(int))]
internal sealed partial class ShardJson : JsonSerializerContext;
