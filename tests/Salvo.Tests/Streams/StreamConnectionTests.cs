using System.Buffers;
using System.Net.Sockets;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

public sealed class StreamConnectionTests
{
    public static TheoryData<string> Framers() => ["length-prefix", "delimited"];

    private static IMessageFramer Framer(string name) => name == "delimited" ? new DelimitedFramer() : new LengthPrefixFramer();

    [Theory]
    [MemberData(nameof(Framers))]
    public async Task Echo_ManyMessagesOfMixedSizes_ArriveIntactAndInOrder(string framer)
    {
        var serverHandler = new RecordingHandler { Echo = true };
        await using var server = new StreamServer(new StreamServerOptions { Framer = Framer(framer) }, serverHandler);
        server.Start();
        var clientHandler = new RecordingHandler();
        await using var client = new StreamClient(new StreamClientOptions { Framer = Framer(framer) }, clientHandler);
        var connection = await client.ConnectAsync(server.LocalEndPoint!);

        // Sizes from empty to several pooled blocks (4 KiB each), so frames span reads and segments.
        var messages = Enumerable.Range(0, 300).Select(i => StreamTestKit.Message(i, i * 97 % 20_000)).ToArray();
        foreach (var message in messages)
        {
            Assert.True(await connection.SendAsync(message));
        }

        foreach (var message in messages)
        {
            Assert.Equal(message, await RecordingHandler.ReceiveAsync(connection));
        }
    }

    [Fact]
    public async Task CloseAsync_WithMessagesQueued_PeerGetsThemAllThenEndOfStream()
    {
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(new StreamServerOptions(), serverHandler);
        server.Start();
        var clientHandler = new RecordingHandler();
        await using var client = new StreamClient(new StreamClientOptions(), clientHandler);
        var clientSide = await client.ConnectAsync(server.LocalEndPoint!);
        var serverSide = await serverHandler.NextConnectionAsync();

        for (var i = 0; i < 500; i++)
        {
            Assert.True(await serverSide.SendAsync(StreamTestKit.Message(i, 1000)));
        }

        await serverSide.CloseAsync().WaitAsync(RecordingHandler.Patience);
        await clientSide.Completion.WaitAsync(RecordingHandler.Patience);

        for (var i = 0; i < 500; i++)
        {
            Assert.Equal(StreamTestKit.Message(i, 1000), await RecordingHandler.ReceiveAsync(clientSide));
        }

        Assert.Equal(StreamCloseReason.LocalClose, serverSide.CloseReason);
        Assert.Equal(StreamCloseReason.RemoteClosed, clientSide.CloseReason);
        Assert.False(await serverSide.SendAsync(new byte[1]));
    }

    [Fact]
    public async Task IdleTimeout_NothingSentOrReceived_ClosesTheConnection()
    {
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(
            new StreamServerOptions { IdleTimeout = TimeSpan.FromMilliseconds(200) }, serverHandler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions(), new RecordingHandler());
        var clientSide = await client.ConnectAsync(server.LocalEndPoint!);
        var serverSide = await serverHandler.NextConnectionAsync();

        await serverSide.Completion.WaitAsync(RecordingHandler.Patience);
        await clientSide.Completion.WaitAsync(RecordingHandler.Patience);

        Assert.Equal(StreamCloseReason.IdleTimeout, serverSide.CloseReason);
        Assert.Equal(StreamCloseReason.RemoteClosed, clientSide.CloseReason);
    }

    [Fact]
    public async Task StopAsync_OpenConnections_ClosesThemAllWithShutdown()
    {
        var serverHandler = new RecordingHandler();
        var server = new StreamServer(new StreamServerOptions(), serverHandler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions(), new RecordingHandler());
        var connections = new List<StreamConnection>();
        for (var i = 0; i < 5; i++)
        {
            connections.Add(await client.ConnectAsync(server.LocalEndPoint!));
            await serverHandler.NextConnectionAsync();
        }

        await server.StopAsync().WaitAsync(RecordingHandler.Patience);

        Assert.Equal(0, server.ConnectionCount);
        Assert.All(serverHandler.Closed.Values, reason => Assert.Equal(StreamCloseReason.Shutdown, reason));
        Assert.Equal(5, serverHandler.Closed.Count);
        foreach (var connection in connections)
        {
            await connection.Completion.WaitAsync(RecordingHandler.Patience);
            Assert.Equal(StreamCloseReason.RemoteClosed, connection.CloseReason);
        }
    }

    [Fact]
    public async Task ClosingToken_HandlerWaiting_IsCancelledWhenTheConnectionCloses()
    {
        var handlerSawCancel = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var handlerStarted = new TaskCompletionSource<StreamConnection>(TaskCreationOptions.RunContinuationsAsynchronously);
        var handler = StreamHandler.Create(async (connection, _) =>
        {
            handlerStarted.TrySetResult(connection);
            try
            {
                await Task.Delay(Timeout.Infinite, connection.ClosingToken);
            }
            catch (OperationCanceledException)
            {
                handlerSawCancel.TrySetResult();
            }
        });
        await using var server = new StreamServer(new StreamServerOptions(), handler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions(), new RecordingHandler());
        var clientSide = await client.ConnectAsync(server.LocalEndPoint!);
        Assert.True(await clientSide.SendAsync(new byte[] { 1 }));
        var serverSide = await handlerStarted.Task.WaitAsync(RecordingHandler.Patience);

        var closing = serverSide.CloseAsync();

        await handlerSawCancel.Task.WaitAsync(RecordingHandler.Patience);
        await closing.WaitAsync(RecordingHandler.Patience);
        Assert.Equal(StreamCloseReason.LocalClose, serverSide.CloseReason);
        Assert.Empty(server.Connections);
    }

    [Fact]
    public async Task StopAsync_HandlerNeverReturns_CompletesAfterTheCloseTimeout_AndBlocksComeBackLater()
    {
        var logger = new Microsoft.Extensions.Logging.Testing.FakeLogger();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var stubborn = StreamHandler.Create(async (_, _) =>
        {
            entered.TrySetResult();
            await release.Task; // ignores ClosingToken on purpose
        });
        var server = new StreamServer(
            new StreamServerOptions { CloseTimeout = TimeSpan.FromMilliseconds(200), Logger = logger }, stubborn);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions(), new RecordingHandler());
        var clientSide = await client.ConnectAsync(server.LocalEndPoint!);
        Assert.True(await clientSide.SendAsync(new byte[] { 1 }));
        await entered.Task.WaitAsync(RecordingHandler.Patience);

        await server.StopAsync().WaitAsync(RecordingHandler.Patience);

        Assert.Contains(logger.Collector.GetSnapshot(), r => r.Id.Id == 3007);
        release.SetResult();
        await StreamTestKit.WaitUntilAsync(() => server.BufferPool.RentedBlocks == 0, "the handler's input block is back");
    }

    [Fact]
    public async Task StopAsync_WhileTheFirstHandlerCallHasNotYetAwaited_StillWaitsOnlyTheCloseTimeout()
    {
        // With the message already in the socket when the connection starts, the first handler call runs inside
        // the receive loop's first synchronous stretch, and this handler holds that stretch until the close has
        // begun. A close that looked at the receive loop before the loop's task existed took it for finished,
        // never counted the stuck handler out, and StopAsync waited for the handler to return.
        var handler = new HoldsFirstCallHandler();
        var server = new StreamServer(new StreamServerOptions { CloseTimeout = TimeSpan.FromMilliseconds(200) }, handler);
        server.Start();
        using var peer = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await peer.ConnectAsync(server.LocalEndPoint!);
        peer.Send(new byte[] { 0, 0, 0, 1, 7 }); // one length-prefixed message of one byte
        handler.MessageSent.SetResult();
        await handler.Entered.Task.WaitAsync(RecordingHandler.Patience);

        // Two close timeouts (the peer's end of stream, then the handler) are 400 ms; 5 s is far past them.
        var stop = server.StopAsync();
        var first = await Task.WhenAny(stop, Task.Delay(TimeSpan.FromSeconds(5)));

        handler.Release.SetResult();
        Assert.True(first == stop, "StopAsync waited for the stuck handler instead of the close timeout");
        await stop;
        await StreamTestKit.WaitUntilAsync(() => server.BufferPool.RentedBlocks == 0, "the handler's input block is back");
    }

    [Fact]
    public async Task MaxConnections_Reached_NextConnectionIsClosedAtOnce()
    {
        var serverHandler = new RecordingHandler { Echo = true };
        await using var server = new StreamServer(new StreamServerOptions { MaxConnections = 1 }, serverHandler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions(), new RecordingHandler());
        var first = await client.ConnectAsync(server.LocalEndPoint!);
        await serverHandler.NextConnectionAsync();

        var second = await client.ConnectAsync(server.LocalEndPoint!);

        await second.Completion.WaitAsync(RecordingHandler.Patience);
        Assert.Equal(StreamCloseReason.RemoteClosed, second.CloseReason);
        Assert.True(await first.SendAsync(new byte[] { 9 }));
        Assert.Equal([9], await RecordingHandler.ReceiveAsync(first));
    }

    [Fact]
    public async Task StopAsync_Cancelled_DropsConnectionsWhosePeerNeverCloses()
    {
        var serverHandler = new RecordingHandler();
        var server = new StreamServer(new StreamServerOptions { CloseTimeout = TimeSpan.FromMinutes(10) }, serverHandler);
        server.Start();
        using var silent = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        await silent.ConnectAsync(server.LocalEndPoint!);
        var connection = await serverHandler.NextConnectionAsync();

        // The peer never ends its stream, so a graceful close would wait the whole CloseTimeout.
        await server.StopAsync(new CancellationToken(canceled: true)).WaitAsync(RecordingHandler.Patience);

        Assert.Equal(StreamCloseReason.Shutdown, connection.CloseReason);
        Assert.Equal(0, server.ConnectionCount);
        Assert.True(connection.Completion.IsCompleted);
    }

    [Fact]
    public async Task SendAsync_MessageOverTheLimit_ThrowsAndConnectionStaysOpen()
    {
        var serverHandler = new RecordingHandler { Echo = true };
        await using var server = new StreamServer(new StreamServerOptions(), serverHandler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions { Framer = new LengthPrefixFramer(100) }, new RecordingHandler());
        var connection = await client.ConnectAsync(server.LocalEndPoint!);

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await connection.SendAsync(new byte[101]));
        Assert.True(await connection.SendAsync(new byte[100]));
        Assert.Equal(100, (await RecordingHandler.ReceiveAsync(connection)).Length);
    }

    [Theory]
    [InlineData(nameof(StreamOptions.MaxSendQueueBytes))]
    [InlineData(nameof(StreamOptions.IdleTimeout))]
    [InlineData(nameof(StreamOptions.SendTimeout))]
    [InlineData(nameof(StreamServerOptions.Backlog))]
    [InlineData(nameof(StreamOptions.SocketSendBufferSize))]
    public void StreamServer_InvalidOption_ThrowsNamingIt(string option)
    {
        var options = new StreamServerOptions();
        switch (option)
        {
            case nameof(StreamOptions.MaxSendQueueBytes): options.MaxSendQueueBytes = 0; break;
            case nameof(StreamOptions.IdleTimeout): options.IdleTimeout = TimeSpan.Zero; break;
            case nameof(StreamOptions.SendTimeout): options.SendTimeout = TimeSpan.FromSeconds(-2); break;
            case nameof(StreamServerOptions.Backlog): options.Backlog = -1; break;
            default: options.SocketSendBufferSize = 0; break;
        }

        var e = Assert.ThrowsAny<ArgumentException>(() => new StreamServer(options, StreamHandler.Ignore));
        Assert.Equal(option, e.ParamName);
    }

    /// <summary>Starts no loop before the message is in the socket; its first call blocks until the close begins, then never returns on its own.</summary>
    private sealed class HoldsFirstCallHandler : IStreamHandler
    {
        public TaskCompletionSource MessageSent { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Entered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Release { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public void OnConnected(StreamConnection connection) =>
            Assert.True(MessageSent.Task.Wait(RecordingHandler.Patience), "the message was never sent");

        public async ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message)
        {
            Entered.TrySetResult();
            Assert.True(SpinWait.SpinUntil(() => !connection.IsOpen, RecordingHandler.Patience), "the close never began");
            await Release.Task; // ignores ClosingToken on purpose
        }
    }
}
