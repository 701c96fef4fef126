using Salvo.Streams;

namespace Salvo.Tests.Streams;

public sealed class StreamIdleMemoryTests
{
    [Fact]
    public async Task IdleConnections_AfterTraffic_HoldNoPooledBlock()
    {
        await using var server = new StreamServer(new StreamServerOptions(), new RecordingHandler { Echo = true });
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions(), new RecordingHandler());
        var connections = new List<StreamConnection>();
        for (var i = 0; i < 20; i++)
        {
            connections.Add(await client.ConnectAsync(server.LocalEndPoint!));
        }

        // Messages of several 4 KiB blocks, so both pipes on both sides rent blocks.
        var message = StreamTestKit.Message(7, 10_000);
        foreach (var connection in connections)
        {
            for (var i = 0; i < 5; i++)
            {
                Assert.True(await connection.SendAsync(message));
            }
        }

        foreach (var connection in connections)
        {
            for (var i = 0; i < 5; i++)
            {
                Assert.Equal(message, await RecordingHandler.ReceiveAsync(connection));
            }
        }

        Assert.True(server.BufferPool.SlabCount > 0, "The server's pipes never used the pool.");
        await StreamTestKit.WaitUntilAsync(
            () => server.BufferPool.RentedBlocks == 0 && client.BufferPool.RentedBlocks == 0,
            () => $"idle connections have given every block back (server {server.BufferPool.RentedBlocks}, client {client.BufferPool.RentedBlocks})");
        Assert.Equal(20, server.ConnectionCount);
        Assert.All(connections, c => Assert.True(c.IsOpen));
    }
}
