using System.Net;
using Salvo.Server;

namespace Salvo.Tests.Server;

/// <summary>
/// A GSO sender's runs must not overflow a worker's reply batch: the server receives without GRO, so a batch
/// never holds more than BatchSize datagrams and one reply per request always fits.
/// </summary>
public sealed class EchoGsoBurstTests
{
    [RequiresFact(Requirement.Linux)]
    public async Task Echo_OfGsoRunsLongerThanTheBatch_AnswersEveryDatagram()
    {
        await using var server = new DatagramServer(
            new DatagramServerOptions { EndPoint = new IPEndPoint(IPAddress.Loopback, 0), Workers = 1, BatchSize = 8, ReceiveBufferSize = 4 << 20 },
            new EchoHandler());
        await server.StartAsync();
        using var client = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            ReceiveBufferSize = 4 << 20,
        });
        Assert.True(client.Capabilities.Gso);

        // Two runs of 64 equal datagrams: each leaves as one UDP_SEGMENT message of 64 segments.
        var batch = new SendBatch(capacity: 64, maxDatagramSize: 200);
        var destination = DatagramAddress.FromIPEndPoint(server.LocalEndPoint);
        for (var run = 0; run < 2; run++)
        {
            batch.Clear();
            for (var i = 0; i < 64; i++)
            {
                Assert.True(batch.TryAdd(200, destination, out var payload));
                payload.Fill((byte)((run * 64) + i));
            }

            Assert.Equal(64, await client.SendAsync(batch));
        }

        var seen = new HashSet<byte>();
        var received = new ReceiveBatch();
        while (seen.Count < 128)
        {
            await client.ReceiveAsync(received).AsTask().WaitAsync(TimeSpan.FromSeconds(10));
            foreach (var datagram in received)
            {
                Assert.Equal(200, datagram.Length);
                seen.Add(datagram.Payload[0]);
            }
        }

        Assert.Equal(128, seen.Count);
    }
}
