using System.Buffers;
using System.Net.Sockets;
using Microsoft.Extensions.Diagnostics.Metrics.Testing;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Testing;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

public sealed class StreamBackpressureTests
{
    private const int QueueLimit = 64 * 1024;
    private const int MessageLength = 1024;
    private const int FrameLength = MessageLength + LengthPrefixFramer.HeaderLength;

    // Far more than the queue limit plus both kernel buffers (kept small below) can hold, so the loops
    // below always reach a full queue; a bound on the loop, not on time.
    private const int MaxMessages = 20_000;

    [Fact]
    public async Task SendAsync_PeerNeverReads_QueueStaysBounded_ThenConnectionClosesWithSendTimeout()
    {
        using var meters = new TestMeterFactory();
        using var closes = new MetricCollector<long>(meters, "Salvo", "salvo.stream.connections.closed");
        var logger = new FakeLogger();
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(
            new StreamServerOptions
            {
                MaxSendQueueBytes = QueueLimit,
                SendTimeout = TimeSpan.FromMilliseconds(300),
                SocketSendBufferSize = 16 * 1024,
                Logger = logger,
                MeterFactory = meters,
            },
            serverHandler);
        server.Start();
        using var reader = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await reader.ConnectAsync(server.LocalEndPoint!);
        var connection = await serverHandler.NextConnectionAsync();

        var message = new byte[MessageLength];
        long peak = 0;
        var sent = 0;
        while (sent < MaxMessages && await connection.SendAsync(message))
        {
            peak = Math.Max(peak, connection.QueuedSendBytes);
            sent++;
        }

        Assert.True(sent < MaxMessages, "SendAsync never reported the closed connection.");
        Assert.InRange(peak, 1, QueueLimit + FrameLength);
        await connection.Completion.WaitAsync(RecordingHandler.Patience);
        Assert.Equal(StreamCloseReason.SendTimeout, connection.CloseReason);
        Assert.Contains(logger.Collector.GetSnapshot(), r => r.Level == LogLevel.Warning && r.Message.Contains("not reading", StringComparison.Ordinal));
        Assert.Equal("send_timeout", Assert.Single(closes.GetMeasurementSnapshot()).Tags["reason"]);
        await StreamTestKit.WaitUntilAsync(() => server.BufferPool.RentedBlocks == 0, "the closed connection's blocks are back");
    }

    [Fact]
    public async Task SendAsync_CappedPoolRunsOut_DropsOnlyThatConnection_AndGivesTheBlocksBack()
    {
        using var pool = new Salvo.Buffers.PinnedBufferPool(maxBytes: Salvo.Buffers.PinnedBufferPool.DefaultSlabSize);
        var serverHandler = new RecordingHandler { Echo = true };
        await using var server = new StreamServer(
            new StreamServerOptions { BufferPool = pool, MaxSendQueueBytes = 1 << 20, SocketSendBufferSize = 16 * 1024 },
            serverHandler);
        server.Start();
        using var reader = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await reader.ConnectAsync(server.LocalEndPoint!);
        var hog = await serverHandler.NextConnectionAsync();

        // 128 KiB of pool against a 1 MiB queue: the pool runs out first.
        var message = new byte[60_000];
        var sent = 0;
        while (sent < 100 && await hog.SendAsync(message))
        {
            sent++;
        }

        await hog.Completion.WaitAsync(RecordingHandler.Patience);
        Assert.Equal(StreamCloseReason.BufferPoolExhausted, hog.CloseReason);
        await StreamTestKit.WaitUntilAsync(() => pool.RentedBlocks == 0, "the dropped connection's blocks are back");

        await using var client = new StreamClient(new StreamClientOptions(), new RecordingHandler());
        var next = await client.ConnectAsync(server.LocalEndPoint!);
        Assert.True(await next.SendAsync(new byte[] { 5 }));
        Assert.Equal([5], await RecordingHandler.ReceiveAsync(next));
    }

    [Fact]
    public async Task SendAsync_CancelledWhileWaiting_NextSendStillWaits_AndNothingIsLost()
    {
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(
            new StreamServerOptions { MaxSendQueueBytes = QueueLimit, SendTimeout = Timeout.InfiniteTimeSpan, SocketSendBufferSize = 16 * 1024 },
            serverHandler);
        server.Start();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var received = new System.Collections.Concurrent.ConcurrentQueue<byte[]>();
        var clientHandler = StreamHandler.Create(async (_, message) =>
        {
            await release.Task;
            received.Enqueue(message.ToArray());
        });
        await using var client = new StreamClient(new StreamClientOptions { SocketReceiveBufferSize = 4096 }, clientHandler);
        await client.ConnectAsync(server.LocalEndPoint!);
        var connection = await serverHandler.NextConnectionAsync();

        using var cancel = new CancellationTokenSource();
        var sent = 0;
        ValueTask<bool> blocked = default;
        while (sent < MaxMessages)
        {
            var send = connection.SendAsync(StreamTestKit.Message(sent, MessageLength), cancel.Token);
            sent++;
            if (!send.IsCompleted)
            {
                blocked = send;
                break;
            }

            Assert.True(await send);
        }

        Assert.True(sent < MaxMessages, "The send queue never filled.");
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await blocked);

        // The cancelled message stays queued; the next send must wait for room instead of piling on top.
        var next = connection.SendAsync(StreamTestKit.Message(sent, MessageLength));
        sent++;
        Assert.False(next.IsCompleted);
        Assert.InRange(connection.QueuedSendBytes, QueueLimit, QueueLimit + FrameLength);

        release.SetResult();
        Assert.True(await next.AsTask().WaitAsync(RecordingHandler.Patience));
        await StreamTestKit.WaitUntilAsync(() => received.Count >= sent, $"{sent} messages arrived");
        Assert.Equal(Enumerable.Range(0, sent).Select(i => StreamTestKit.Message(i, MessageLength)), received);
    }

    [Fact]
    public async Task TrySend_PeerNeverReads_RefusesAtTheLimit_AndKeepsTheConnection()
    {
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(
            new StreamServerOptions { MaxSendQueueBytes = QueueLimit, SocketSendBufferSize = 16 * 1024 }, serverHandler);
        server.Start();
        using var reader = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await reader.ConnectAsync(server.LocalEndPoint!);
        var connection = await serverHandler.NextConnectionAsync();

        var message = new byte[MessageLength];
        var accepted = 0;
        while (accepted < MaxMessages && connection.TrySend(message))
        {
            Assert.InRange(connection.QueuedSendBytes, 0, QueueLimit + FrameLength);
            accepted++;
        }

        Assert.True(accepted < MaxMessages, "TrySend never refused.");
        Assert.InRange(connection.QueuedSendBytes, QueueLimit, QueueLimit + FrameLength);
        Assert.False(connection.TrySend(message));
        Assert.True(connection.IsOpen);
    }

    [Fact]
    public async Task SendAsync_QueueFull_WaitsUntilThePeerReads_AndEveryMessageArrives()
    {
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(
            new StreamServerOptions { MaxSendQueueBytes = QueueLimit, SendTimeout = Timeout.InfiniteTimeSpan, SocketSendBufferSize = 16 * 1024 },
            serverHandler);
        server.Start();

        // The client's handler holds its first message until released, so its receive loop stops reading and
        // TCP flow control pushes back to the server's send queue.
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var received = new System.Collections.Concurrent.ConcurrentQueue<byte[]>();
        var clientHandler = StreamHandler.Create(async (_, message) =>
        {
            await release.Task;
            received.Enqueue(message.ToArray());
        });
        await using var client = new StreamClient(new StreamClientOptions { SocketReceiveBufferSize = 4096 }, clientHandler);
        var clientSide = await client.ConnectAsync(server.LocalEndPoint!);
        var connection = await serverHandler.NextConnectionAsync();

        ValueTask<bool> blocked = default;
        var sent = 0;
        while (sent < MaxMessages)
        {
            var send = connection.SendAsync(StreamTestKit.Message(sent, MessageLength));
            sent++;
            if (!send.IsCompleted)
            {
                blocked = send;
                break;
            }

            Assert.True(await send);
            Assert.InRange(connection.QueuedSendBytes, 0, QueueLimit + FrameLength);
        }

        Assert.True(sent < MaxMessages, "The send queue never filled.");
        Assert.InRange(connection.QueuedSendBytes, QueueLimit, QueueLimit + FrameLength);

        release.SetResult();
        Assert.True(await blocked.AsTask().WaitAsync(RecordingHandler.Patience));
        Assert.True(await connection.SendAsync(StreamTestKit.Message(sent, MessageLength)));
        sent++;
        await StreamTestKit.WaitUntilAsync(() => received.Count >= sent, $"{sent} messages arrived");

        Assert.Equal(Enumerable.Range(0, sent).Select(i => StreamTestKit.Message(i, MessageLength)), received);

        Assert.True(clientSide.IsOpen);
    }
}
