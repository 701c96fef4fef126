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
        var messages = Enumerable.Range(0, BatchSize).Select(i => StreamTestKit.Message(i, 10 + i)).ToArray();

        var sends = await SendAsOneBatchAsync(messages, socketSendBufferSize: null);

        // One flush: the send loop finds every frame in the pipe at once (one send per 4 KiB block at most).
        Assert.InRange(sends, 1, 2);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task QueueSpanningManyBlocks_LeavesInOneGatheredSend_AndArrivesWholeInOrder()
    {
        var messages = Enumerable.Range(0, 24).Select(i => StreamTestKit.Message(i, 2_000 + i)).ToArray(); // 12 blocks of 4 KiB

        // Room for the whole queue in the socket buffer, so the kernel can take it in one call.
        var sends = await SendAsOneBatchAsync(messages, socketSendBufferSize: 1 << 20);

        // Block by block this took 12 sends; gathered it is one (two if the kernel takes only part of it at first).
        Assert.InRange(sends, 1, 2);
    }

    [Fact]
    public async Task SlowReader_ManyBlocksQueued_EveryByteArrivesInOrder()
    {
        // An 8 KiB send buffer and a reader that takes 1 KiB at a time: gathered sends are cut short, and the loop
        // falls back to waiting for room, over and over.
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(
            new StreamServerOptions { SocketSendBufferSize = 8 * 1024, MaxSendQueueBytes = 1 << 20 }, serverHandler);
        server.Start();
        using var reader = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096, ReceiveTimeout = 10_000 };
        await reader.ConnectAsync(server.LocalEndPoint!);
        var connection = await serverHandler.NextConnectionAsync();
        var messages = Enumerable.Range(0, 200).Select(i => StreamTestKit.Message(i, 1_000 + (i * 37 % 3_000))).ToArray();
        for (var i = 0; i < messages.Length; i += 10)
        {
            Assert.True(connection.TrySendBatch(messages.Skip(i).Take(10).Select(m => (ReadOnlyMemory<byte>)m).ToArray()));
        }

        var expected = new System.Buffers.ArrayBufferWriter<byte>();
        foreach (var message in messages)
        {
            MessageFramer.LengthPrefix.Encode(message, expected);
        }

        var arrived = new byte[expected.WrittenCount];
        var total = 0;
        var chunk = new byte[1024];
        while (total < arrived.Length)
        {
            var read = reader.Receive(chunk); // throws after 10 s without data
            Assert.True(read > 0, $"the stream ended after {total} of {arrived.Length} bytes");
            chunk.AsSpan(0, read).CopyTo(arrived.AsSpan(total));
            total += read;
        }

        Assert.True(expected.WrittenSpan.SequenceEqual(arrived), "the bytes arrived changed or out of order");
        Assert.True(connection.IsOpen);
        await StreamTestKit.WaitUntilAsync(() => connection.QueuedSendBytes == 0, () => $"the send queue is empty ({connection.QueuedSendBytes} bytes)");
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

    /// <summary>
    /// Sends <paramref name="messages"/> from a client in one <see cref="StreamConnection.TrySendBatch"/>, checks that
    /// the server gets each whole and in order, and returns the client's socket send calls.
    /// </summary>
    private static async Task<long> SendAsOneBatchAsync(byte[][] messages, int? socketSendBufferSize)
    {
        using var meters = new TestMeterFactory();
        using var socketSends = new MetricCollector<long>(meters, "Salvo", "salvo.stream.socket.sends");
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(new StreamServerOptions(), serverHandler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions { MeterFactory = meters, SocketSendBufferSize = socketSendBufferSize });
        var clientSide = await client.ConnectAsync((System.Net.IPEndPoint)server.LocalEndPoint!);
        var serverSide = await serverHandler.NextConnectionAsync();

        Assert.True(clientSide.TrySendBatch(messages.Select(m => (ReadOnlyMemory<byte>)m).ToArray()));

        foreach (var expected in messages)
        {
            Assert.Equal(expected, await RecordingHandler.ReceiveAsync(serverSide));
        }

        await StreamTestKit.WaitUntilAsync(() => clientSide.QueuedSendBytes == 0, () => $"the send queue is empty ({clientSide.QueuedSendBytes} bytes)");
        return socketSends.GetMeasurementSnapshot().Sum(m => m.Value);
    }
}
