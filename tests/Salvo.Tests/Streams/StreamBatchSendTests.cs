using System.Net.Sockets;
using Microsoft.Extensions.Diagnostics.Metrics.Testing;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary><see cref="StreamConnection.TrySendBatch"/>: several messages, one hold of the send lock, one flush; all or none.</summary>
public sealed class StreamBatchSendTests
{
    private const int BatchSize = 20;

    [Fact]
    public async Task Batch_ArrivesWholeAndInOrder_InFarFewerSocketSendsThanMessages()
    {
        using var meters = new TestMeterFactory();
        using var socketSends = new MetricCollector<long>(meters, "Salvo", "salvo.stream.socket.sends");
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(new StreamServerOptions(), serverHandler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions { MeterFactory = meters });
        var clientSide = await client.ConnectAsync((System.Net.IPEndPoint)server.LocalEndPoint!);
        var serverSide = await serverHandler.NextConnectionAsync();
        var messages = Enumerable.Range(0, BatchSize).Select(i => StreamTestKit.Message(i, 10 + i)).ToArray();

        Assert.True(clientSide.TrySendBatch(messages.Select(m => (ReadOnlyMemory<byte>)m).ToArray()));

        foreach (var expected in messages)
        {
            Assert.Equal(expected, await RecordingHandler.ReceiveAsync(serverSide));
        }

        // One flush: the send loop finds every frame in the pipe at once (one send per 4 KiB block at most).
        Assert.InRange(socketSends.GetMeasurementSnapshot().Sum(m => m.Value), 1, 2);
        await StreamTestKit.WaitUntilAsync(() => clientSide.QueuedSendBytes == 0, () => $"the send queue is empty ({clientSide.QueuedSendBytes} bytes)");
    }

    [Fact]
    public async Task BatchWithAnOversizedMessage_Throws_AndQueuesNone()
    {
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(new StreamServerOptions(), serverHandler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions { Framer = new LengthPrefixFramer(maxMessageSize: 100) });
        var clientSide = await client.ConnectAsync((System.Net.IPEndPoint)server.LocalEndPoint!);
        var serverSide = await serverHandler.NextConnectionAsync();

        var error = Assert.Throws<ArgumentOutOfRangeException>(() => clientSide.TrySendBatch(new ReadOnlyMemory<byte>[] { new byte[10], new byte[101] }));
        Assert.Contains("101", error.Message, StringComparison.Ordinal);
        Assert.Equal(0, clientSide.QueuedSendBytes);

        // The connection goes on, and the first message of the refused batch never went.
        Assert.True(clientSide.TrySendBatch(new ReadOnlyMemory<byte>[] { new byte[] { 7 } }));
        Assert.Equal(new byte[] { 7 }, await RecordingHandler.ReceiveAsync(serverSide));
    }

    [Fact]
    public async Task QueueAtTheLimit_RefusesTheWholeBatch_AndKeepsTheConnection()
    {
        const int queueLimit = 64 * 1024;
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(
            new StreamServerOptions { MaxSendQueueBytes = queueLimit, SocketSendBufferSize = 16 * 1024 }, serverHandler);
        server.Start();
        using var reader = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await reader.ConnectAsync(server.LocalEndPoint!);
        var connection = await serverHandler.NextConnectionAsync();
        var batch = Enumerable.Range(0, 4).Select(_ => (ReadOnlyMemory<byte>)new byte[1024]).ToArray();

        var accepted = 0;
        while (accepted < 1_000 && connection.TrySendBatch(batch))
        {
            accepted++;
        }

        Assert.True(accepted < 1_000, "TrySendBatch never refused against a peer that never reads.");
        var queued = connection.QueuedSendBytes;
        Assert.InRange(queued, queueLimit, queueLimit + (4 * (1024 + LengthPrefixFramer.HeaderLength)));
        Assert.False(connection.TrySendBatch(batch));
        Assert.True(connection.QueuedSendBytes <= queued, "a refused batch added to the queue");
        Assert.True(connection.IsOpen);
        Assert.True(connection.TrySendBatch(ReadOnlySpan<ReadOnlyMemory<byte>>.Empty));
    }
}
