using System.Buffers;
using System.Net;
using Salvo.Perf.Connections;
using Salvo.Streams;

namespace Salvo.Perf.Tests;

/// <summary>
/// The lean load generator against the library's echo server: echoes far larger than one read come back whole
/// (the held-bytes path), under both framings, a batch at a time, with nothing closed or misread.
/// </summary>
public sealed class EpollLoadClientTests
{
    [RequiresFact(Requirement.Linux)]
    public async Task LargeEchoes_SplitAcrossReads_DecodeWhole_UnderBothFramings()
    {
        foreach (var framer in new[] { MessageFramer.LengthPrefix, MessageFramer.Delimited })
        {
            // SendAsync: two 60 KB echoes at once can pass the server's send queue limit, where TrySend would refuse.
            var echo = StreamHandler.Create(async (connection, message) => Assert.True(await connection.SendAsync(message.ToArray())));
            await using var server = new StreamServer(new StreamServerOptions { Framer = framer }, echo);
            server.Start();
            var port = ((IPEndPoint)server.LocalEndPoint!).Port;
            using var client = EpollLoadClient.Connect(new IPEndPoint(IPAddress.Loopback, port), IPAddress.Loopback, count: 4);
            Assert.Equal(0, client.Failures);

            // 20-60 KB messages, two per send: every echo spans several 64 KiB-or-smaller reads. Every echo is waited
            // for (a busy machine once returned 0 of 198 within the one-second window), up to a bound that only a
            // lost or misread echo would reach.
            var settings = new ClientShardSettings(port, IPAddress.Loopback, Count: 4, Active: 4, RatePerSecond: 200, DurationSeconds: 1,
                MinMessageBytes: 20_000, MaxMessageBytes: 60_000, LoadClientKind.Epoll, Batch: 2) { SettleSeconds = 30 };
            var outcome = await Task.Run(() => client.Run(settings, framer));

            Assert.True(outcome.Sent >= 10, $"{framer.GetType().Name}: {outcome}");
            Assert.True(outcome.Echoed == outcome.Sent, $"{framer.GetType().Name}: {outcome}");
            Assert.Equal(0, outcome.Malformed);
            Assert.Equal(0, outcome.Closed);
            Assert.Equal(outcome.Echoed, outcome.Latency.Count);
        }
    }
}
