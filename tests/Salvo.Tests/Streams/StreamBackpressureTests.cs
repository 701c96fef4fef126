using System.Buffers;
using System.Collections.Concurrent;
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
        Assert.Equal("send_timeout", Assert.Single(closes.GetMeasurementSnapshot()).Tags["error.type"]);
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
        await using var peer = await StalledPeer.StartAsync();
        var connection = peer.ServerSide;

        using var cancel = new CancellationTokenSource();
        var (sent, blocked) = await FillUntilASendWaitsAsync(connection, cancel.Token);
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await blocked);

        // The cancelled message stays queued; the next send must wait for room instead of piling on top.
        var next = connection.SendAsync(StreamTestKit.Message(sent, MessageLength));
        sent++;
        Assert.False(next.IsCompleted);
        Assert.InRange(connection.QueuedSendBytes, QueueLimit, QueueLimit + FrameLength);

        peer.Release.SetResult();
        Assert.True(await next.AsTask().WaitAsync(RecordingHandler.Patience));
        await peer.WaitForAsync(sent);
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
        await using var peer = await StalledPeer.StartAsync();
        var connection = peer.ServerSide;

        var (sent, blocked) = await FillUntilASendWaitsAsync(connection, CancellationToken.None);
        Assert.InRange(connection.QueuedSendBytes, QueueLimit, QueueLimit + FrameLength);

        peer.Release.SetResult();
        Assert.True(await blocked.AsTask().WaitAsync(RecordingHandler.Patience));
        Assert.True(await connection.SendAsync(StreamTestKit.Message(sent, MessageLength)));
        sent++;
        await peer.WaitForAsync(sent);

        Assert.True(peer.ClientSide.IsOpen);
    }

    /// <summary>
    /// Sends numbered messages until one cannot complete at once (the queue reached its limit), checking the bound on
    /// the way; returns how many were sent, that one included, and the waiting send.
    /// </summary>
    private static async Task<(int Sent, ValueTask<bool> Blocked)> FillUntilASendWaitsAsync(StreamConnection connection, CancellationToken cancellationToken)
    {
        var sent = 0;
        while (sent < MaxMessages)
        {
            var send = connection.SendAsync(StreamTestKit.Message(sent, MessageLength), cancellationToken);
            sent++;
            if (!send.IsCompleted)
            {
                return (sent, send);
            }

            Assert.True(await send);
            Assert.InRange(connection.QueuedSendBytes, 0, QueueLimit + FrameLength);
        }

        Assert.Fail("The send queue never filled.");
        return default;
    }

    /// <summary>
    /// A server with a <see cref="QueueLimit"/> send queue and a client whose handler holds its first message until
    /// <see cref="Release"/>, so that its receive loop stops reading and TCP flow control pushes back to the server's
    /// send queue.
    /// </summary>
    private sealed class StalledPeer : IAsyncDisposable
    {
        private StalledPeer(StreamServer server, StreamClient client)
        {
            Server = server;
            Client = client;
        }

        public StreamServer Server { get; }

        public StreamClient Client { get; }

        public StreamConnection ClientSide { get; private set; } = null!;

        public StreamConnection ServerSide { get; private set; } = null!;

        public TaskCompletionSource Release { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public ConcurrentQueue<byte[]> Received { get; } = new();

        public static async Task<StalledPeer> StartAsync()
        {
            var serverHandler = new RecordingHandler();
            var server = new StreamServer(
                new StreamServerOptions { MaxSendQueueBytes = QueueLimit, SendTimeout = Timeout.InfiniteTimeSpan, SocketSendBufferSize = 16 * 1024 },
                serverHandler);
            server.Start();
            StalledPeer? peer = null;
            var clientHandler = StreamHandler.Create(async (_, message) =>
            {
                await peer!.Release.Task;
                peer.Received.Enqueue(message.ToArray());
            });
            peer = new StalledPeer(server, new StreamClient(new StreamClientOptions { SocketReceiveBufferSize = 4096 }, clientHandler));
            peer.ClientSide = await peer.Client.ConnectAsync(server.LocalEndPoint!);
            peer.ServerSide = await serverHandler.NextConnectionAsync();
            return peer;
        }

        /// <summary>Waits until <paramref name="count"/> messages arrived, then checks they are messages 0 to count - 1 in order.</summary>
        public async Task WaitForAsync(int count)
        {
            await StreamTestKit.WaitUntilAsync(() => Received.Count >= count, $"{count} messages arrived");
            Assert.Equal(Enumerable.Range(0, count).Select(i => StreamTestKit.Message(i, MessageLength)), Received);
        }

        public async ValueTask DisposeAsync()
        {
            await Client.DisposeAsync();
            await Server.DisposeAsync();
        }
    }
}
