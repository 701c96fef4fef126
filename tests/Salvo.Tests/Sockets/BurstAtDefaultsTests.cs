using System.Net;
using System.Net.Sockets;
using Salvo.Server;
using Salvo.Tests.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Sockets;

/// <summary>
/// A burst sent back to back while nobody reads: with the options left alone the kernel must hold it. The kernel's own
/// default (net.core.rmem_default, 208 KiB) held about 90 of 200 datagrams of 1,200 B; the rest were dropped unseen.
/// </summary>
[Collection(NonParallelCollection.Name)]
public sealed class BurstAtDefaultsTests
{
    private const int Burst = 200;
    private const int DatagramBytes = 1_200;

    [RequiresFact(Requirement.Linux)]
    public void DefaultOptions_BurstOf200Datagrams1200BytesSentBeforeAnyReceive_AllArrive()
    {
        using var socket = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        using var sender = Client();

        SendBurst(sender, socket.LocalEndPoint);
        var received = DrainAll(socket);

        Assert.True(received == Burst, $"{received} of {Burst} arrived; receive buffer granted {socket.ReceiveBufferSize} B");
        Assert.Equal(0, socket.GetStatistics().KernelDrops);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task ServerWithATinyBuffer_BurstWhileTheHandlerIsHeld_WorkerAndServerStatisticsCountTheDrops()
    {
        var handler = new RecordingHandler();
        await using var server = new DatagramServer(
            new DatagramServerOptions { EndPoint = new IPEndPoint(IPAddress.Loopback, 0), Workers = 1, ReceiveBufferSize = 4096 }, handler);

        await BurstWhileHeldAsync(server, handler);

        var total = server.GetStatistics();
        Assert.True(total.KernelDrops > 0, "a 4 KiB buffer cannot hold 199 datagrams of 1,200 B");
        Assert.Equal(total.KernelDrops, server.GetWorkerStatistics(0).KernelDrops);
        Assert.Equal(Burst, total.DatagramsReceived + total.KernelDrops);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task ServerAtDefaults_BurstWhileTheHandlerIsHeld_AllAreHandled()
    {
        var handler = new RecordingHandler();
        await using var server = new DatagramServer(new DatagramServerOptions { EndPoint = new IPEndPoint(IPAddress.Loopback, 0), Workers = 1 }, handler);

        await BurstWhileHeldAsync(server, handler);

        Assert.True(handler.SeenCount == Burst, $"{handler.SeenCount} of {Burst} handled; {server.GetStatistics()}");
        Assert.Equal(0, server.GetStatistics().KernelDrops);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task TinyReceiveBuffer_Flooded_StatisticsCountTheKernelsDropsAsSentLessReceived()
    {
        using var socket = new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0), ReceiveBufferSize = 4096 });
        using var sender = Client();

        SendBurst(sender, socket.LocalEndPoint);
        var received = DrainAll(socket);

        // The drops were counted when the kernel made them, before the receive started: nothing to wait for but the read.
        Assert.True(await WaitUntil(() => socket.GetStatistics().KernelDrops == Burst - received), $"received {received}; {socket.GetStatistics()}");
        var stats = socket.GetStatistics();
        Assert.True(stats.KernelDrops > 0, "a 4 KiB buffer cannot hold 200 datagrams of 1,200 B");
        Assert.Equal(received, stats.DatagramsReceived);
    }

    [RequiresFact(Requirement.Linux)]
    public void DefaultOptions_AskForFourMiBBuffers_AndTheGrantIsReadable()
    {
        var options = new DatagramSocketOptions();
        using var socket = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));

        Assert.Equal(4 << 20, options.ReceiveBufferSize);
        Assert.Equal(4 << 20, options.SendBufferSize);
        // Linux grants twice what was asked, capped at twice net.core.rmem_max (4 MiB on these machines, 208 KiB by default).
        Assert.True(socket.ReceiveBufferSize >= 2 * Math.Min(4 << 20, RmemMax()), $"granted {socket.ReceiveBufferSize}");
        Assert.Equal(0, socket.GetStatistics().KernelDrops);
    }

    private static int RmemMax() => int.Parse(File.ReadAllText("/proc/sys/net/core/rmem_max").Trim(), System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>
    /// Starts the server and sends the burst while its one worker is held: the first datagram reaches the handler and
    /// holds the worker at the gate, so the rest wait in the kernel (or are dropped there). Returns once every datagram
    /// is handled or counted as dropped.
    /// </summary>
    private static async Task BurstWhileHeldAsync(DatagramServer server, RecordingHandler handler)
    {
        handler.Gate.Reset();
        await server.StartAsync();
        using var sender = Client();
        sender.SendTo(Payload(), server.LocalEndPoint);
        Assert.True(await WaitUntil(() => handler.Calls > 0), "the first datagram never reached the handler");
        SendBurst(sender, server.LocalEndPoint, Burst - 1);
        handler.Gate.Set();
        Assert.True(
            await WaitUntil(() => handler.SeenCount + (server.GetStatistics().KernelDrops ?? 0) == Burst),
            $"{handler.SeenCount} of {Burst} handled; {server.GetStatistics()}");
    }

    internal static byte[] Payload() => new byte[DatagramBytes];

    internal static void SendBurst(Socket sender, IPEndPoint to, int count = Burst)
    {
        var payload = Payload();
        for (var i = 0; i < count; i++)
        {
            Assert.Equal(payload.Length, sender.SendTo(payload, SocketFlags.None, to));
        }
    }

    /// <summary>Receives until nothing more comes within 200 ms; the burst is already queued (or dropped) when this starts.</summary>
    internal static int DrainAll(DatagramSocket socket)
    {
        var batch = new ReceiveBatch(64, 2048);
        var received = 0;
        for (var calls = 0; calls < 10_000; calls++)
        {
            var count = socket.Receive(batch, TimeSpan.FromMilliseconds(200));
            if (count == 0)
            {
                break;
            }

            received += count;
        }

        return received;
    }
}
