using Salvo.Buffers;
using Salvo.Streams;
using Xunit.Abstractions;

namespace Salvo.Tests.Streams;

[Collection(NonParallelCollection.Name)]
public sealed class StreamManyIdleConnectionsTests(ITestOutputHelper output)
{
    private const int Connections = 2_000;

    // Both ends of every connection live in this process: socket objects, two pipes and two waiting loops
    // per end. Measured 6,900 to 7,045 bytes per pair in three runs (docs/streams.md); the bound leaves
    // room for runtime changes but fails if a connection starts holding a 4 KiB block or a buffer of its own.
    private const long MaxBytesPerPair = 16 * 1024;

    [Fact]
    public async Task TwoThousandIdleConnections_RentNoBlocks_AndCostLittleManagedMemory()
    {
        using var pool = new PinnedBufferPool();
        await using var server = new StreamServer(new StreamServerOptions { BufferPool = pool, Backlog = Connections }, new RecordingHandler { Echo = true });
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions { BufferPool = pool });

        // Warm up: one connection with traffic, so that one-time costs (pool slab, socket engine) are not counted.
        var warm = await client.ConnectAsync(server.LocalEndPoint!);
        Assert.True(await warm.SendAsync(new byte[100]));
        await StreamTestKit.WaitUntilAsync(() => server.ConnectionCount == 1, "the warm-up connection is accepted");

        var before = GC.GetTotalMemory(forceFullCollection: true);
        var connections = new StreamConnection[Connections];
        for (var i = 0; i < Connections; i++)
        {
            connections[i] = await client.ConnectAsync(server.LocalEndPoint!);
        }

        await StreamTestKit.WaitUntilAsync(() => server.ConnectionCount == Connections + 1, "every connection is accepted");
        await StreamTestKit.WaitUntilAsync(() => pool.RentedBlocks == 0, "no block is rented");
        var after = GC.GetTotalMemory(forceFullCollection: true);

        var perPair = (after - before) / Connections;
        output.WriteLine($"{Connections} idle connection pairs: {after - before:N0} managed bytes, {perPair:N0} per pair (client + server end); rented blocks {pool.RentedBlocks}");
        Assert.Equal(0, pool.RentedBlocks);
        Assert.InRange(perPair, 1, MaxBytesPerPair);
        GC.KeepAlive(connections);
    }
}
