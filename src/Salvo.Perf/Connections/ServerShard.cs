using System.Net;
using System.Text.Json;
using Salvo.Perf.Measurement;
using Salvo.Streams;

namespace Salvo.Perf.Connections;

/// <summary>
/// One server process of <c>salvo connections</c>: an echo server on 127.0.0.1 (or ::1) with SO_REUSEPORT (Salvo's
/// <see cref="StreamServer"/>, or the plain .NET one it is measured against), so several such processes share
/// the port and each holds its share of the connections within its own open-file limit. Answers <c>measure</c>
/// with its memory and <c>quit</c> by stopping.
/// </summary>
internal static class ServerShard
{
    public static async Task<int> RunAsync(IPEndPoint endPoint, IMessageFramer framer, bool plain, TextReader commands, TextWriter replies)
    {
        DescriptorLimit.Ensure(1_000_000);
        await using IEchoShardServer server = plain ? new PlainEchoServer(endPoint, framer) : new SalvoEchoServer(endPoint, framer);
        server.Start();
        await replies.WriteLineAsync($"{ShardProtocol.Ready} {server.Port}").ConfigureAwait(false);
        await replies.FlushAsync().ConfigureAwait(false);

        while (await commands.ReadLineAsync().ConfigureAwait(false) is { } command && command != ShardProtocol.Quit)
        {
            if (command == ShardProtocol.Measure)
            {
                var cpu = CpuClock.Process().TotalSeconds;
                var memory = new ServerShardMemory(server.ConnectionCount, MemorySnapshot.Take(), server.PinnedBytes,
                    server.RentedBlocks, server.ClosedByReason, cpu,
                    Environment.GetEnvironmentVariable(ShardProcess.InlineCompletionsVariable) == "1");
                await replies.WriteLineAsync($"{ShardProtocol.Memory} {JsonSerializer.Serialize(memory, ShardJson.Default.ServerShardMemory)}").ConfigureAwait(false);
                await replies.FlushAsync().ConfigureAwait(false);
            }
        }

        return 0;
    }
}
