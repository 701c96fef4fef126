using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;

namespace Salvo.Perf.Connections;

/// <summary>
/// Runs <c>salvo connections</c> over shard processes: echo servers sharing one port with SO_REUSEPORT and
/// clients each connecting from its own 127.0.0.x source address. Each process holds at most
/// <see cref="MaxConnectionsPerProcess"/> connections, so the count is bounded by memory, not by one process's
/// open-file limit (20,000 here, and raising the hard limit needs CAP_SYS_RESOURCE). Memory is measured in the
/// server processes: what a server pays per connection.
/// </summary>
internal static class ConnectionsRunner
{
    /// <summary>Connections per process: below a 20,000 descriptor limit with room for the runtime's own.</summary>
    public const int MaxConnectionsPerProcess = 15_000;

    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(60);

    public static ConnectionsResult Run(ConnectionsSettings settings, Action<string> progress, CancellationToken cancellationToken)
    {
        var shards = Math.Max(1, (settings.Count + MaxConnectionsPerProcess - 1) / MaxConnectionsPerProcess);
        var servers = new List<ShardProcess>();
        var clients = new List<ShardProcess>();
        try
        {
            servers.Add(ShardProcess.Start(["connections", "shard-server", "--bind", settings.Address, "--port", "0", "--framing", settings.Framing, "--server", settings.Server], settings.InlineCompletions));
            var port = int.Parse(servers[0].ExpectAsync(ShardProtocol.Ready, StartTimeout).GetAwaiter().GetResult(), CultureInfo.InvariantCulture);
            for (var i = 1; i < shards; i++)
            {
                servers.Add(ShardProcess.Start(
                    ["connections", "shard-server", "--bind", settings.Address, "--port", port.ToString(CultureInfo.InvariantCulture), "--framing", settings.Framing, "--server", settings.Server],
                    settings.InlineCompletions));
            }

            Task.WaitAll(servers.Skip(1).Select(s => s.ExpectAsync(ShardProtocol.Ready, StartTimeout)), cancellationToken);
            var baseline = Measure(servers);
            progress($"{shards} server process(es) on {new IPEndPoint(IPAddress.Parse(settings.Address), port)}; connecting {settings.Count:N0}");

            for (var k = 0; k < shards; k++)
            {
                var count = Share(settings.Count, shards, k);
                var active = Share(settings.Active, shards, k);
                var rate = settings.Active == 0 ? 0 : settings.RatePerSecond * active / settings.Active;
                clients.Add(ShardProcess.Start([
                    "connections", "shard-client", "--bind", settings.Address, "--port", port.ToString(CultureInfo.InvariantCulture),
                    "--source", SourceAddress(settings.Address, k), "--count", Invariant(count), "--active", Invariant(active),
                    "--rate", rate.ToString("R", CultureInfo.InvariantCulture), "--time", settings.DurationSeconds.ToString("R", CultureInfo.InvariantCulture),
                    "--min-size", Invariant(settings.MinMessageBytes), "--max-size", Invariant(settings.MaxMessageBytes), "--framing", settings.Framing,
                    "--client", settings.Client, "--batch", Invariant(settings.Batch), "--settle", settings.SettleSeconds.ToString("R", CultureInfo.InvariantCulture),
                ]));
            }

            var connectTimeout = TimeSpan.FromSeconds(60 + (settings.Count / 1_000.0));
            var connects = clients.Select(c => JsonSerializer.Deserialize(c.ExpectAsync(ShardProtocol.Connected, connectTimeout).GetAwaiter().GetResult(), ShardJson.Default.ClientShardConnected)!).ToList();
            var connected = connects.Sum(c => c.Connected);
            progress($"{connected:N0} connected ({connects.Sum(c => c.Failures):N0} failed) in {connects.Max(c => c.Seconds):F1} s; measuring idle memory");
            var idle = MeasureWhenAccepted(servers, connected);

            var results = new List<ClientShardResult>();
            if (settings.RatePerSecond > 0 && settings.Active > 0 && settings.DurationSeconds > 0)
            {
                progress($"traffic: {settings.RatePerSecond:N0} messages/s for {settings.DurationSeconds} s");
                Task.WaitAll(clients.Select(c => c.SendAsync(ShardProtocol.Go)), cancellationToken);
                var trafficTimeout = TimeSpan.FromSeconds(settings.DurationSeconds + settings.SettleSeconds + 60);
                results.AddRange(clients.Select(c => JsonSerializer.Deserialize(c.ExpectAsync(ShardProtocol.Result, trafficTimeout).GetAwaiter().GetResult(), ShardJson.Default.ClientShardResult)!));
            }

            var after = Measure(servers);
            var serverConnections = idle.Sum(m => m.Connections);
            var echoed = results.Sum(r => r.Echoed);
            var echoedInWindow = results.Sum(r => r.EchoedInWindow);
            var seconds = results.Count == 0 ? 0 : results.Max(r => r.Seconds);
            return new ConnectionsResult(
                shards,
                connected,
                connects.Sum(c => c.Failures),
                connects.Max(c => c.Seconds),
                serverConnections,
                results.Sum(r => r.Sent),
                echoed,
                Math.Max(0, results.Sum(r => r.Sent) - echoed),
                seconds == 0 ? 0 : echoedInWindow / seconds,
                results.Sum(r => r.Refused),
                results.Count == 0 ? null : results.MaxBy(r => r.Latency.P99Microseconds)!.Latency,
                Sum(baseline),
                Sum(idle),
                Sum(after),
                serverConnections == 0 ? 0 : (double)(Sum(idle).ManagedBytes - Sum(baseline).ManagedBytes) / serverConnections,
                serverConnections == 0 ? 0 : (double)(Sum(idle).WorkingSetBytes - Sum(baseline).WorkingSetBytes) / serverConnections,
                after.Sum(m => m.PinnedBytes),
                after.Sum(m => m.RentedBlocks),
                after.SelectMany(m => m.ClosedByReason).GroupBy(p => p.Key).ToDictionary(g => g.Key, g => g.Sum(p => p.Value)),
                PerMessage(after.Sum(m => m.CpuSeconds) - idle.Sum(m => m.CpuSeconds), echoed),
                PerMessage(results.Sum(r => r.CpuSeconds), echoed),
                results.Sum(r => r.Closed),
                results.Sum(r => r.Malformed),
                after.Count(m => m.InlineCompletions));
        }
        finally
        {
            progress("closing");
            foreach (var shard in clients.Concat(servers))
            {
                shard.RequestQuit();
            }

            foreach (var shard in clients.Concat(servers))
            {
                shard.Dispose();
            }
        }
    }

    /// <summary>
    /// Measures once the servers have accepted every connection the clients completed (a client's connect
    /// completes when the kernel queues the connection, before the server accepts it); at most 30 s.
    /// </summary>
    private static List<ServerShardMemory> MeasureWhenAccepted(List<ShardProcess> servers, int connected)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
        while (true)
        {
            var memory = Measure(servers);
            if (memory.Sum(m => m.Connections) >= connected || DateTime.UtcNow > deadline)
            {
                return memory;
            }

            Thread.Sleep(200);
        }
    }

    private static List<ServerShardMemory> Measure(List<ShardProcess> servers)
    {
        Task.WaitAll(servers.Select(s => s.SendAsync(ShardProtocol.Measure)));
        return servers.Select(s => JsonSerializer.Deserialize(s.ExpectAsync(ShardProtocol.Memory, StartTimeout).GetAwaiter().GetResult(), ShardJson.Default.ServerShardMemory)!).ToList();
    }

    private static MemorySnapshot Sum(List<ServerShardMemory> shards) => new(
        shards.Sum(s => s.Memory.ManagedBytes),
        shards.Sum(s => s.Memory.HeapBytes),
        shards.Sum(s => s.Memory.FragmentedBytes),
        shards.Sum(s => s.Memory.PinnedObjects),
        shards.Sum(s => s.Memory.WorkingSetBytes),
        Enumerable.Range(0, 5).Select(g => shards.Sum(s => s.Memory.FragmentedBytesByGeneration is { } f && g < f.Length ? f[g] : 0)).ToArray());

    private static double PerMessage(double cpuSeconds, long messages) => messages == 0 ? 0 : cpuSeconds * 1e6 / messages;

    /// <summary>
    /// Client process <paramref name="index"/>'s source: its own 127.0.0.x, so each gets a full local port range
    /// towards the one server port; IPv6 has only ::1.
    /// </summary>
    private static string SourceAddress(string serverAddress, int index) =>
        IPAddress.Parse(serverAddress).AddressFamily == AddressFamily.InterNetworkV6 ? "::1" : $"127.0.0.{2 + (index % 250)}";

    private static int Share(int total, int parts, int index) => (total / parts) + (index < total % parts ? 1 : 0);

    private static string Invariant(int value) => value.ToString(CultureInfo.InvariantCulture);
}
