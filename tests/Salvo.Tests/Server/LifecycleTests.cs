using System.Runtime.Versioning;
using System.Net.Sockets;
using Salvo.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

public sealed class LifecycleTests
{
    [Theory]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued, QueueOverflowPolicy.Wait)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued, QueueOverflowPolicy.Wait)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued, QueueOverflowPolicy.DropNewest)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued, QueueOverflowPolicy.DropOldest)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Inline, QueueOverflowPolicy.Wait)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Inline, QueueOverflowPolicy.Wait)]
    public Task StopAsync_UnderLoadWithAStuckHandler_CompletesAndTheAccountingAddsUp(ServerIoModel ioModel, ServerProcessing processing, QueueOverflowPolicy policy) =>
        StopAsync_UnderLoadWithAStuckHandler_CompletesAndTheAccountingAddsUp_With(DatagramBackend.Auto, ioModel, processing, policy);

    [RequiresTheory(Requirement.IoUring)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued, QueueOverflowPolicy.Wait)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued, QueueOverflowPolicy.Wait)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued, QueueOverflowPolicy.DropNewest)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued, QueueOverflowPolicy.DropOldest)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Inline, QueueOverflowPolicy.Wait)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Inline, QueueOverflowPolicy.Wait)]
    [SupportedOSPlatform("linux")]
    public Task StopAsync_UnderLoadWithAStuckHandler_CompletesAndTheAccountingAddsUp_OnIoUring(ServerIoModel ioModel, ServerProcessing processing, QueueOverflowPolicy policy) =>
        StopAsync_UnderLoadWithAStuckHandler_CompletesAndTheAccountingAddsUp_With(DatagramBackend.IoUring, ioModel, processing, policy);

    private static async Task StopAsync_UnderLoadWithAStuckHandler_CompletesAndTheAccountingAddsUp_With(DatagramBackend backend, ServerIoModel ioModel, ServerProcessing processing, QueueOverflowPolicy policy)
    {
        var handler = new RecordingHandler();
        handler.Gate.Reset();
        var options = LoopbackOptions(workers: 2);
        options.Backend = backend;
        options.IoModel = ioModel;
        options.Processing = processing;
        options.OverflowPolicy = policy;
        options.QueueCapacity = 64;
        options.DrainTimeout = TimeSpan.FromMilliseconds(200);
        var server = new DatagramServer(options, handler);
        await server.StartAsync();

        using var sending = new CancellationTokenSource();
        var sender = Task.Run(() => Flood(server, sending.Token));
        try
        {
            // Inline, the worker's first batch sticks at the gate and the rest waits in the kernel;
            // queued, the queue fills behind the stuck handler.
            var arrived = processing == ServerProcessing.Queued ? options.QueueCapacity : 1;
            Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsReceived >= arrived), "Nothing arrived.");

            // The handler is stuck at its gate: the stop must give up draining, not hang or throw.
            var stop = server.StopAsync();
            await stop.WaitAsync(Patience);
            Assert.False(server.IsRunning);
        }
        finally
        {
            handler.Gate.Set();
            await sending.CancelAsync();
            await sender;
        }

        await server.DisposeAsync();
        var stats = server.GetStatistics();
        Assert.Equal(0, stats.QueueDepth);
        Assert.Equal(stats.DatagramsReceived, stats.DatagramsHandled + stats.DatagramsDropped);
        if (processing == ServerProcessing.Queued)
        {
            Assert.True(stats.DroppedByReason[DatagramDropReason.Stopped] + stats.DroppedByReason[DatagramDropReason.QueueFull] > 0, $"A stuck handler behind a queue must leave drops: {stats}");
        }
    }

    [Theory]
    [InlineData(ServerIoModel.DedicatedThread)]
    [InlineData(ServerIoModel.Async)]
    public async Task StopAsync_WithAHandlerThatKeepsUp_DrainsEverythingQueued(ServerIoModel ioModel)
    {
        const int Sent = 200;
        var handler = new RecordingHandler();
        handler.Gate.Reset();
        var options = LoopbackOptions(workers: 1);
        options.IoModel = ioModel;
        options.Processing = ServerProcessing.Queued;
        options.QueueCapacity = Sent;
        await using var server = new DatagramServer(options, handler);
        await server.StartAsync();
        using var client = Client();
        for (var i = 0; i < Sent; i++)
        {
            client.SendTo(Numbered(0, i), SocketFlags.None, server.LocalEndPoint);
        }

        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsReceived == Sent));
        var stop = server.StopAsync();
        handler.Gate.Set();
        await stop.WaitAsync(Patience);

        var stats = server.GetStatistics();
        Assert.Equal(Sent, stats.DatagramsHandled);
        Assert.Equal(0, stats.DatagramsDropped);
        Assert.Equal(Enumerable.Range(0, Sent), handler.Seen.Select(s => s.Sequence));
    }

    [Fact]
    public async Task StartAsync_AfterStop_ThrowsAndStopIsIdempotent()
    {
        var server = new DatagramServer(LoopbackOptions(), new RecordingHandler());
        await server.StartAsync();
        await Assert.ThrowsAsync<InvalidOperationException>(() => server.StartAsync());
        await server.StopAsync();
        await server.StopAsync();
        await Assert.ThrowsAsync<InvalidOperationException>(() => server.StartAsync());
        await server.DisposeAsync();
        await server.DisposeAsync();
    }

    [Fact]
    public async Task StartAsync_OnAPortInUse_ThrowsAndLeavesNothingOpen()
    {
        using var taken = Client();
        var options = LoopbackOptions();
        options.EndPoint = (System.Net.IPEndPoint)taken.LocalEndPoint!;
        await using var server = new DatagramServer(options, new RecordingHandler());
        await Assert.ThrowsAsync<SocketException>(() => server.StartAsync());
        Assert.False(server.IsRunning);
    }

    private static async Task Flood(DatagramServer server, CancellationToken cancellationToken)
    {
        using var client = Client();
        var payload = new byte[64];
        // Bounded: at most 200,000 datagrams even if the test never cancels.
        for (var i = 0; i < 200_000 && !cancellationToken.IsCancellationRequested; i++)
        {
            Numbered(i % 8, i).CopyTo(payload, 0);
            try
            {
                client.SendTo(payload, SocketFlags.None, server.LocalEndPoint);
            }
            catch (SocketException)
            {
                // The server has closed; an ICMP error may surface here.
                return;
            }

            if (i % 256 == 0)
            {
                await Task.Yield();
            }
        }
    }
}
