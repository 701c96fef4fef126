using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

/// <summary>The server's sockets open from a <see cref="DatagramSocketOptions"/> template, and replies can leave from the address a request came to.</summary>
public sealed class ServerSocketTemplateTests
{
    // A second loopback address: the whole of 127.0.0.0/8 is local, so a server bound to 0.0.0.0 receives on it.
    private static readonly IPAddress s_otherLoopback = IPAddress.Parse("127.0.0.2");

    [RequiresTheory(Requirement.Linux)]
    [InlineData(true, "127.0.0.2")]
    [InlineData(false, "127.0.0.1")]
    [SupportedOSPlatform("linux")]
    public Task TryReply_WithPacketInformation_LeavesFromTheAddressTheRequestCameTo(bool packetInformation, string expectedSource) =>
        TryReply_WithPacketInformation_LeavesFromTheAddressTheRequestCameTo_With(DatagramBackend.Auto, packetInformation, expectedSource);

    [RequiresTheory(Requirement.IoUring)]
    [InlineData(true, "127.0.0.2")]
    [InlineData(false, "127.0.0.1")]
    [SupportedOSPlatform("linux")]
    public Task TryReply_WithPacketInformation_LeavesFromTheAddressTheRequestCameTo_OnIoUring(bool packetInformation, string expectedSource) =>
        TryReply_WithPacketInformation_LeavesFromTheAddressTheRequestCameTo_With(DatagramBackend.IoUring, packetInformation, expectedSource);

    [SupportedOSPlatform("linux")]
    private static async Task TryReply_WithPacketInformation_LeavesFromTheAddressTheRequestCameTo_With(DatagramBackend backend, bool packetInformation, string expectedSource)
    {
        var options = WildcardOptions(packetInformation);
        options.Backend = backend;
        await using var server = new DatagramServer(options, new ReplyingHandler());
        await server.StartAsync();
        using var client = Client();

        client.SendTo("ping"u8, new IPEndPoint(s_otherLoopback, server.LocalEndPoint.Port));

        var (reply, source) = await ReceiveAsync(client);
        Assert.Equal("ping", reply);
        // Without packet information the kernel picks the source by route to the client (127.0.0.1), and a client
        // connected to 127.0.0.2 would drop the reply.
        Assert.Equal(IPAddress.Parse(expectedSource), source.Address);
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData(ServerProcessing.Inline)]
    [InlineData(ServerProcessing.Queued)]
    [SupportedOSPlatform("linux")]
    public Task Handler_SeesEachDatagramsDestination_InlineAndThroughTheQueue(ServerProcessing processing) =>
        Handler_SeesEachDatagramsDestination_InlineAndThroughTheQueue_With(DatagramBackend.Auto, processing);

    [RequiresTheory(Requirement.IoUring)]
    [InlineData(ServerProcessing.Inline)]
    [InlineData(ServerProcessing.Queued)]
    [SupportedOSPlatform("linux")]
    public Task Handler_SeesEachDatagramsDestination_InlineAndThroughTheQueue_OnIoUring(ServerProcessing processing) =>
        Handler_SeesEachDatagramsDestination_InlineAndThroughTheQueue_With(DatagramBackend.IoUring, processing);

    [SupportedOSPlatform("linux")]
    private static async Task Handler_SeesEachDatagramsDestination_InlineAndThroughTheQueue_With(DatagramBackend backend, ServerProcessing processing)
    {
        var options = WildcardOptions(packetInformation: true);
        options.Backend = backend;
        options.Processing = processing;
        var handler = new ReplyingHandler();
        await using var server = new DatagramServer(options, handler);
        await server.StartAsync();
        using var client = Client();

        client.SendTo("a"u8, new IPEndPoint(s_otherLoopback, server.LocalEndPoint.Port));
        client.SendTo("b"u8, new IPEndPoint(IPAddress.Loopback, server.LocalEndPoint.Port));

        Assert.True(await WaitUntil(() => handler.Destinations.Count == 2));
        Assert.Equal(s_otherLoopback, handler.Destinations["a"].ToIPEndPoint()!.Address);
        Assert.Equal(IPAddress.Loopback, handler.Destinations["b"].ToIPEndPoint()!.Address);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task FlushRepliesAsync_SendsMoreRepliesThanTheBatchHolds()
    {
        var options = LoopbackOptions();
        options.BatchSize = 2;
        await using var server = new DatagramServer(options, new FanOutHandler(5));
        await server.StartAsync();
        using var client = Client();

        client.SendTo("x"u8, server.LocalEndPoint);

        var replies = new List<string>();
        for (var i = 0; i < 5; i++)
        {
            replies.Add((await ReceiveAsync(client)).Payload);
        }

        Assert.Equal(["x0", "x1", "x2", "x3", "x4"], replies);
        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsSent == 5));
    }

    [RequiresFact(Requirement.Linux)]
    public async Task ReceiveThreadStarted_RunsOnEachWorkersReceiveThread()
    {
        var started = new ConcurrentDictionary<int, string?>();
        var options = LoopbackOptions(workers: 2);
        options.ReceiveThreadStarted = index => started[index] = Thread.CurrentThread.Name;
        await using var server = new DatagramServer(options, new ReplyingHandler());
        await server.StartAsync();

        Assert.True(await WaitUntil(() => started.Count == 2));
        Assert.Equal("salvo-receive-0", started[0]);
        Assert.Equal("salvo-receive-1", started[1]);
    }

    [Fact]
    public void Template_WithGro_IsRefusedNamingTheOption()
    {
        var options = LoopbackOptions();
        options.Socket.Gro = true;

        var error = Assert.Throws<ArgumentException>(options.Validate);
        Assert.Equal("Socket", error.ParamName);
        Assert.Contains("Socket.Gro", error.Message);
    }

    [Fact]
    public void NestedInitializer_KeepsTheEndPointSetBeforeIt()
    {
        // Read-only, so "Socket = new() { ... }" after EndPoint no longer compiles (it replaced the template the
        // endpoint had been written into); the nested form sets the template's properties.
        Assert.Null(typeof(DatagramServerOptions).GetProperty(nameof(DatagramServerOptions.Socket))!.SetMethod);
        var endPoint = new IPEndPoint(IPAddress.Loopback, 5353);
        var options = new DatagramServerOptions { EndPoint = endPoint, Socket = { DontFragment = true } };

        Assert.Same(endPoint, options.EndPoint);
        Assert.True(options.Socket.DontFragment);
        Assert.False(options.Socket.Gro);
        options.Validate();
    }

    [Fact]
    public void ServerSettings_AreTheTemplatesSettings()
    {
        var options = new DatagramServerOptions { ReceiveBufferSize = 1 << 20, DualMode = false, Backend = DatagramBackend.Portable };
        options.EndPoint = new IPEndPoint(IPAddress.IPv6Loopback, 7);

        Assert.Equal(1 << 20, options.Socket.ReceiveBufferSize);
        Assert.False(options.Socket.DualMode);
        Assert.Equal(DatagramBackend.Portable, options.Socket.Backend);
        Assert.Equal(options.EndPoint, options.Socket.LocalEndPoint);
        Assert.False(options.Socket.Gro);
    }

    [Fact]
    public async Task Server_IsNotAffectedByChangesToTheTemplateAfterItIsCreated()
    {
        var options = LoopbackOptions();
        await using var server = new DatagramServer(options, new ReplyingHandler());
        options.Socket.Gro = true;
        options.EndPoint = new IPEndPoint(IPAddress.Parse("192.0.2.1"), 9);

        await server.StartAsync();

        Assert.Equal(IPAddress.Loopback, server.LocalEndPoint.Address);
    }

    [SupportedOSPlatform("linux")]
    private static DatagramServerOptions WildcardOptions(bool packetInformation)
    {
        var options = LoopbackOptions();
        options.EndPoint = new IPEndPoint(IPAddress.Any, 0);
        options.Socket.ReceivePacketInformation = packetInformation;
        return options;
    }

    private static async Task<(string Payload, IPEndPoint Source)> ReceiveAsync(Socket client)
    {
        var buffer = new byte[64];
        using var timeout = new CancellationTokenSource(Patience);
        var result = await client.ReceiveFromAsync(buffer, new IPEndPoint(IPAddress.Any, 0), timeout.Token);
        return (System.Text.Encoding.ASCII.GetString(buffer, 0, result.ReceivedBytes), (IPEndPoint)result.RemoteEndPoint);
    }

    /// <summary>Echoes each datagram with <see cref="DatagramContext.TryReply"/> and notes where it was sent.</summary>
    private sealed class ReplyingHandler : IDatagramHandler
    {
        public ConcurrentDictionary<string, DatagramAddress> Destinations { get; } = new();

        public void Handle(in DatagramContext context)
        {
            foreach (var datagram in context.Datagrams)
            {
                Destinations[System.Text.Encoding.ASCII.GetString(datagram.Payload)] = datagram.Destination;
                Assert.True(context.TryReply(datagram, datagram.Payload));
            }
        }
    }

    /// <summary>Answers each request with <paramref name="replies"/> numbered datagrams, flushing when the batch is full.</summary>
    private sealed class FanOutHandler(int replies) : IAsyncDatagramHandler
    {
        public async ValueTask HandleAsync(DatagramContext context)
        {
            var request = context.Datagrams[0];
            var source = request.Source;
            var prefix = request.Payload[0];
            for (var i = 0; i < replies; i++)
            {
                if (context.Replies.IsFull)
                {
                    await context.FlushRepliesAsync();
                }

                context.Replies.Add([prefix, (byte)('0' + i)], source);
            }
        }
    }
}
