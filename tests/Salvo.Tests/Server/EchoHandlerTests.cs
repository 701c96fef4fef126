using System.Runtime.Versioning;
using System.Net;
using System.Net.Sockets;
using Salvo.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

public sealed class EchoHandlerTests
{
    private const int PerClient = 300;
    private const int Window = 16;

    [Theory]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Inline, DatagramBackend.Auto)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Inline, DatagramBackend.Auto)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued, DatagramBackend.Auto)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued, DatagramBackend.Portable)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Inline, DatagramBackend.Portable)]
    public async Task Echo_ReturnsEveryDatagramUnchanged_ToItsSender(ServerIoModel ioModel, ServerProcessing processing, DatagramBackend backend)
    {
        await EchoEveryDatagram(ioModel, processing, backend);
    }

    [RequiresTheory(Requirement.IoUring)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Inline)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Inline)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued)]
    [SupportedOSPlatform("linux")]
    public Task Echo_OnIoUring_ReturnsEveryDatagramUnchanged_ToItsSender(ServerIoModel ioModel, ServerProcessing processing) =>
        EchoEveryDatagram(ioModel, processing, DatagramBackend.IoUring);

    private static async Task EchoEveryDatagram(ServerIoModel ioModel, ServerProcessing processing, DatagramBackend backend)
    {
        var options = LoopbackOptions(workers: 2);
        options.IoModel = ioModel;
        options.Processing = processing;
        options.Backend = backend;
        await using var server = new DatagramServer(options, new EchoHandler());
        await server.StartAsync();

        var clients = Enumerable.Range(0, 3).Select(_ => Task.Run(() => EchoRound(server.LocalEndPoint))).ToArray();
        await Task.WhenAll(clients).WaitAsync(Patience);

        // A reply is counted just after its send returns, possibly a moment after the client has it.
        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsSent == 3 * PerClient));
        var stats = server.GetStatistics();
        Assert.Equal(3 * PerClient, stats.DatagramsReceived);
        Assert.Equal(stats.BytesReceived, stats.BytesSent);
    }

    [Fact]
    public async Task Echo_OverIPv6Loopback_ReturnsTheDatagram()
    {
        if (!Socket.OSSupportsIPv6)
        {
            return;
        }

        var options = LoopbackOptions(workers: 2);
        options.EndPoint = new IPEndPoint(IPAddress.IPv6Loopback, 0);
        await using var server = new DatagramServer(options, new EchoHandler());
        await server.StartAsync();
        using var client = Client(IPAddress.IPv6Loopback);
        client.SendTo("hello"u8, SocketFlags.None, server.LocalEndPoint);
        var reply = new byte[64];
        EndPoint from = new IPEndPoint(IPAddress.IPv6Any, 0);
        var length = client.ReceiveFrom(reply, ref from);
        Assert.Equal("hello"u8.ToArray(), reply[..length]);
        Assert.Equal(server.LocalEndPoint.Port, ((IPEndPoint)from).Port);
    }

    [Fact]
    public async Task Echo_WithAPerSourceRateLimit_EchoesTheBurstAndCountsTheRest()
    {
        const int Sent = 20;
        const int Burst = 5;
        // One token per 1,000 seconds: nothing refills during the test, so exactly the burst is echoed.
        var handler = new EchoHandler(new EchoOptions { MaxDatagramsPerSecondPerSource = 0.001, Burst = Burst });
        await using var server = new DatagramServer(LoopbackOptions(workers: 1), handler);
        await server.StartAsync();
        using var client = Client();
        for (var i = 0; i < Sent; i++)
        {
            client.SendTo(Numbered(0, i), SocketFlags.None, server.LocalEndPoint);
        }

        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsHandled == Sent && handler.RateLimited == Sent - Burst));
        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsSent == Burst));
        var reply = new byte[64];
        for (var i = 0; i < Burst; i++)
        {
            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            Assert.Equal(8, client.ReceiveFrom(reply, ref from));
            Assert.Equal(i, ReadNumbered(reply).Sequence);
        }
    }

    [Fact]
    public void EchoOptions_WithABadRate_NamesTheOption()
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => new EchoHandler(new EchoOptions { MaxDatagramsPerSecondPerSource = 0 }));
        Assert.Equal(nameof(EchoOptions.MaxDatagramsPerSecondPerSource), error.ParamName);
    }

    /// <summary>Sends sequenced datagrams of varying length, a window at a time, and checks each echo byte for byte.</summary>
    private static void EchoRound(IPEndPoint server)
    {
        using var client = Client();
        var payload = new byte[2048];
        var reply = new byte[2048];
        var received = new bool[PerClient];
        var next = 0;
        var done = 0;
        while (done < PerClient)
        {
            while (next < PerClient && next - done < Window)
            {
                var length = SequencedPayload.LengthFor(next);
                SequencedPayload.Write(payload.AsSpan(0, length), next);
                client.SendTo(payload.AsSpan(0, length), SocketFlags.None, server);
                next++;
            }

            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            var count = client.ReceiveFrom(reply, ref from);
            Assert.Equal(server, (IPEndPoint)from);
            var sequence = SequencedPayload.Verify(reply.AsSpan(0, count));
            Assert.True(sequence >= 0, "An echo came back changed.");
            Assert.False(received[sequence], "An echo came back twice.");
            received[sequence] = true;
            done++;
        }
    }
}
