using Xunit.Abstractions;
using System.Net.Sockets;
using Salvo.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Reliability;

/// <summary>
/// A queued server whose handler can do about 1,000 datagrams a second (1 ms each) under a flood of
/// 10,000 a second: memory stays bounded by the queue and every datagram is accounted for.
/// </summary>
[Collection(NonParallelCollection.Name)]
public sealed class FloodTests(ITestOutputHelper output)
{
    private const int QueueCapacity = 256;
    private const int PerTick = 100;
    private const int Ticks = 200;

    [RequiresTheory(Requirement.Linux)]
    [InlineData(QueueOverflowPolicy.DropNewest)]
    [InlineData(QueueOverflowPolicy.DropOldest)]
    [InlineData(QueueOverflowPolicy.Wait)]
    public async Task QueuedServer_FloodTenTimesTheHandlersCapacity_StaysBoundedAndCountsEveryDatagram(QueueOverflowPolicy policy)
    {
        var handler = new SlowHandler();
        var options = LoopbackOptions();
        options.Processing = ServerProcessing.Queued;
        options.QueueCapacity = QueueCapacity;
        options.OverflowPolicy = policy;
        options.DrainTimeout = TimeSpan.FromMilliseconds(200);
        // With Wait, whatever the kernel holds at the end is handled at 1 ms a datagram: 1 MiB held about 1,800
        // (seen taking 39 s on a busy machine); 64 KiB holds about 100.
        options.ReceiveBufferSize = 64 << 10;
        var server = new DatagramServer(options, handler);
        await server.StartAsync();
        var heapBefore = GC.GetTotalMemory(forceFullCollection: true);
        using var client = Client();
        var payload = new byte[64];
        long sent = 0, deepest = 0;

        // 100 datagrams every 10 ms = 10,000/s for 2 s against a handler that sleeps 1 ms per datagram.
        for (var tick = 0; tick < Ticks; tick++)
        {
            for (var i = 0; i < PerTick; i++)
            {
                sent += client.SendTo(payload, SocketFlags.None, server.LocalEndPoint) == payload.Length ? 1 : 0;
            }

            deepest = Math.Max(deepest, server.GetStatistics().QueueDepth);
            Thread.Sleep(10);
        }

        // Every datagram sent is either taken by the server or dropped by the kernel (receive buffer full).
        Assert.True(await WaitUntil(() => server.GetStatistics() is var s && s.DatagramsReceived + (s.KernelDrops ?? 0) == sent),
            $"sent {sent}, server {server.GetStatistics()}");
        var heapAfter = GC.GetTotalMemory(forceFullCollection: true);
        await server.StopAsync();
        var stats = server.GetStatistics();
        await server.DisposeAsync();

        output.WriteLine($"{policy}: sent {sent}, deepest queue {deepest}, heap growth {heapAfter - heapBefore} B, {stats}");
        Assert.InRange(deepest, 0, QueueCapacity);
        Assert.Equal(stats.DatagramsReceived, stats.DatagramsHandled + stats.DatagramsDropped);
        Assert.Equal(0, stats.QueueDepth);
        Assert.Equal(handler.Handled, stats.DatagramsHandled);
        Assert.Equal(sent, stats.DatagramsReceived + stats.KernelDrops);
        Assert.True(stats.DatagramsHandled < sent / 2, $"the handler kept up: {stats}");
        if (policy == QueueOverflowPolicy.Wait)
        {
            // Waiting pushes the overload back to the kernel, which drops and counts.
            Assert.Equal(0, stats.DroppedByReason[DatagramDropReason.QueueFull]);
            Assert.True(stats.KernelDrops > 0);
        }
        else
        {
            Assert.True(stats.DroppedByReason[DatagramDropReason.QueueFull] > sent / 2);
        }

        // The queue's bytes are allocated once at start; a flood adds nothing that lives on (8 MiB covers the runtime's own noise).
        Assert.InRange(heapAfter - heapBefore, long.MinValue, 8 << 20);
    }

    private sealed class SlowHandler : IDatagramHandler
    {
        private long _handled;

        public long Handled => Interlocked.Read(ref _handled);

        public void Handle(in DatagramContext context)
        {
            foreach (var unused in context.Datagrams)
            {
                Thread.Sleep(1);
                Interlocked.Increment(ref _handled);
            }
        }
    }
}
