using System.Buffers;
using System.Collections.Concurrent;
using System.Net;
using System.Text.Json;
using Salvo.Perf.Measurement;
using Salvo.Streams;

namespace Salvo.Perf.Connections;

/// <summary>
/// One server process of <c>salvo connections</c>: an echo <see cref="StreamServer"/> on 127.0.0.1 with
/// SO_REUSEPORT, so several such processes share the port and each holds its share of the connections
/// within its own open-file limit. Answers <c>measure</c> with its memory and <c>quit</c> by stopping.
/// </summary>
internal static class ServerShard
{
    public static async Task<int> RunAsync(int port, IMessageFramer framer, TextReader commands, TextWriter replies)
    {
        DescriptorLimit.Ensure(1_000_000);
        var closed = new ConcurrentDictionary<string, long>();
        var handler = StreamHandler.Create(
            static (connection, message) =>
            {
                Echo(connection, message);
                return ValueTask.CompletedTask;
            },
            (_, reason) => closed.AddOrUpdate(reason.ToString(), 1, (_, n) => n + 1));
        await using var server = new StreamServer(
            new StreamServerOptions
            {
                EndPoint = new IPEndPoint(IPAddress.Loopback, port),
                Framer = framer,
                ReusePort = true,
                IdleTimeout = TimeSpan.FromHours(1),
                Backlog = 4_096,
            },
            handler);
        server.Start();
        await replies.WriteLineAsync($"{ShardProtocol.Ready} {server.LocalEndPoint!.Port}").ConfigureAwait(false);
        await replies.FlushAsync().ConfigureAwait(false);

        while (await commands.ReadLineAsync().ConfigureAwait(false) is { } command && command != ShardProtocol.Quit)
        {
            if (command == ShardProtocol.Measure)
            {
                var cpu = CpuClock.Process().TotalSeconds;
                var memory = new ServerShardMemory(server.ConnectionCount, MemorySnapshot.Take(), server.BufferPool.PinnedBytes,
                    server.BufferPool.RentedBlocks, new Dictionary<string, long>(closed), cpu,
                    Environment.GetEnvironmentVariable(ShardProcess.InlineCompletionsVariable) == "1");
                await replies.WriteLineAsync($"{ShardProtocol.Memory} {JsonSerializer.Serialize(memory, ShardJson.Default.ServerShardMemory)}").ConfigureAwait(false);
                await replies.FlushAsync().ConfigureAwait(false);
            }
        }

        return 0;
    }

    private static void Echo(StreamConnection connection, ReadOnlySequence<byte> message)
    {
        if (message.IsSingleSegment)
        {
            connection.TrySend(message.FirstSpan);
            return;
        }

        var copy = ArrayPool<byte>.Shared.Rent((int)message.Length);
        message.CopyTo(copy);
        connection.TrySend(copy.AsSpan(0, (int)message.Length));
        ArrayPool<byte>.Shared.Return(copy);
    }
}
