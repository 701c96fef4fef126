using System.Net.Sockets;
using Salvo.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

/// <summary>
/// A handler held at a gate while datagrams arrive: its first datagram waits, the queue fills, and the
/// policy decides the rest. Deterministic: the gate opens only once everything has been received.
/// </summary>
public sealed class OverflowPolicyTests
{
    private const int Sent = 100;
    private const int Capacity = 8;

    [Theory]
    [InlineData(ServerIoModel.DedicatedThread)]
    [InlineData(ServerIoModel.Async)]
    public async Task DropNewest_WithAGatedHandler_KeepsTheOldestAndCountsEveryDrop(ServerIoModel ioModel)
    {
        var (handler, stats) = await RunGated(QueueOverflowPolicy.DropNewest, ioModel);

        var handled = handler.Seen.Select(s => s.Sequence).ToList();
        Assert.Equal(handler.FirstCallSize + Capacity, handled.Count);
        Assert.Equal(Enumerable.Range(0, handled.Count), handled);
        Assert.Equal(Sent - handled.Count, stats.DroppedByReason[DatagramDropReason.QueueFull]);
        Assert.Equal(Sent, stats.DatagramsHandled + stats.DatagramsDropped);
    }

    [Theory]
    [InlineData(ServerIoModel.DedicatedThread)]
    [InlineData(ServerIoModel.Async)]
    public async Task DropOldest_WithAGatedHandler_KeepsTheNewestAndCountsEveryDrop(ServerIoModel ioModel)
    {
        var (handler, stats) = await RunGated(QueueOverflowPolicy.DropOldest, ioModel);

        var handled = handler.Seen.Select(s => s.Sequence).ToList();
        var first = handler.FirstCallSize;
        Assert.Equal(first + Capacity, handled.Count);
        Assert.Equal(Enumerable.Range(0, first).Concat(Enumerable.Range(Sent - Capacity, Capacity)), handled);
        Assert.Equal(Sent - handled.Count, stats.DroppedByReason[DatagramDropReason.QueueFull]);
        Assert.Equal(Sent, stats.DatagramsHandled + stats.DatagramsDropped);
    }

    [Theory]
    [InlineData(ServerIoModel.DedicatedThread)]
    [InlineData(ServerIoModel.Async)]
    public async Task Wait_WithAGatedHandler_DropsNothingAndHandlesEverythingInOrder(ServerIoModel ioModel)
    {
        var handler = new RecordingHandler();
        handler.Gate.Reset();
        await using var server = new DatagramServer(QueuedOptions(QueueOverflowPolicy.Wait, ioModel), handler);
        await server.StartAsync();
        using var client = Client();
        for (var i = 0; i < Sent; i++)
        {
            client.SendTo(Numbered(0, i), SocketFlags.None, server.LocalEndPoint);
        }

        // The queue fills and the receive loop waits; the rest stays in the socket's receive buffer
        // (100 small datagrams are far below its 1 MiB).
        Assert.True(await WaitUntil(() => server.GetStatistics().QueueDepth == Capacity), "The queue never filled.");
        handler.Gate.Set();
        Assert.True(await WaitUntil(() => handler.SeenCount == Sent), "Not every datagram was handled.");

        var stats = server.GetStatistics();
        Assert.Equal(0, stats.DatagramsDropped);
        Assert.Equal(Sent, stats.DatagramsReceived);
        Assert.Equal(Enumerable.Range(0, Sent), handler.Seen.Select(s => s.Sequence));
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Wait_WithATinySocketBuffer_CountsTheKernelsDropsSoSentEqualsHandledPlusDropped()
    {
        var handler = new RecordingHandler();
        handler.Gate.Reset();
        var options = QueuedOptions(QueueOverflowPolicy.Wait, ServerIoModel.DedicatedThread);
        // The smallest buffer the kernel allows holds only a few datagrams: the rest overflow it.
        options.ReceiveBufferSize = 1;
        await using var server = new DatagramServer(options, handler);
        await server.StartAsync();
        using var client = Client();
        for (var i = 0; i < Sent; i++)
        {
            client.SendTo(Numbered(0, i), SocketFlags.None, server.LocalEndPoint);
        }

        handler.Gate.Set();
        Assert.True(await WaitUntil(() =>
        {
            var s = server.GetStatistics();
            return handler.SeenCount == s.DatagramsHandled && s.DatagramsHandled + s.KernelDrops == Sent;
        }), $"Sent {Sent}, but the server accounts for {server.GetStatistics()}.");

        var stats = server.GetStatistics();
        Assert.True(stats.KernelDrops > 0, "The tiny buffer should have overflowed.");
        Assert.Equal(0, stats.DatagramsDropped);
        var handled = handler.Seen.Select(s => s.Sequence).ToList();
        Assert.Equal(handled.Order(), handled);
    }

    [Fact]
    public async Task QueuedServer_WhenTheHandlerKeepsUp_HandlesEverythingWithoutDrops()
    {
        var handler = new RecordingHandler();
        await using var server = new DatagramServer(QueuedOptions(QueueOverflowPolicy.DropNewest, ServerIoModel.DedicatedThread), handler);
        await server.StartAsync();
        using var client = Client();
        for (var i = 0; i < Sent; i++)
        {
            client.SendTo(Numbered(0, i), SocketFlags.None, server.LocalEndPoint);
            Assert.True(await WaitUntil(() => handler.SeenCount == i + 1));
        }

        Assert.Equal(0, server.GetStatistics().DatagramsDropped);
        Assert.Equal(Enumerable.Range(0, Sent), handler.Seen.Select(s => s.Sequence));
    }

    private static DatagramServerOptions QueuedOptions(QueueOverflowPolicy policy, ServerIoModel ioModel)
    {
        var options = LoopbackOptions(workers: 1);
        options.Processing = ServerProcessing.Queued;
        options.OverflowPolicy = policy;
        options.QueueCapacity = Capacity;
        options.BatchSize = 4;
        options.IoModel = ioModel;
        return options;
    }

    private static async Task<(RecordingHandler Handler, DatagramServerStatistics Stats)> RunGated(QueueOverflowPolicy policy, ServerIoModel ioModel)
    {
        var handler = new RecordingHandler();
        handler.Gate.Reset();
        await using var server = new DatagramServer(QueuedOptions(policy, ioModel), handler);
        await server.StartAsync();
        using var client = Client();

        // The first datagram alone, so the handler holds exactly one at the gate before the flood.
        client.SendTo(Numbered(0, 0), SocketFlags.None, server.LocalEndPoint);
        Assert.True(await WaitUntil(() => handler.Calls == 1), "The handler never took its first batch.");
        for (var i = 1; i < Sent; i++)
        {
            client.SendTo(Numbered(0, i), SocketFlags.None, server.LocalEndPoint);
        }

        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsReceived == Sent), "Not every datagram was received.");
        Assert.Equal(1, handler.FirstCallSize);
        handler.Gate.Set();
        Assert.True(await WaitUntil(() =>
        {
            var s = server.GetStatistics();
            return s.QueueDepth == 0 && s.DatagramsHandled + s.DatagramsDropped == Sent && handler.SeenCount == s.DatagramsHandled;
        }), "The queue did not drain.");

        return (handler, server.GetStatistics());
    }
}
