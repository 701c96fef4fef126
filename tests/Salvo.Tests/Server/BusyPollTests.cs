using System.Net;
using System.Net.Sockets;
using Salvo.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

public sealed class BusyPollTests
{
    [RequiresTheory(Requirement.Linux)]
    [InlineData(ServerIoModel.DedicatedThread)]
    [InlineData(ServerIoModel.Async)]
    public async Task BusyPoll_WithASpinBeforeBlocking_PicksUpTheNextRequestWithoutBlocking(ServerIoModel ioModel)
    {
        var options = LoopbackOptions(workers: 1);
        options.IoModel = ioModel;
        // The longest spin allowed (10 ms): the client sends its next request as soon as it has the reply, far
        // sooner than that, so the worker is still spinning when it comes.
        options.BusyPoll = TimeSpan.FromMilliseconds(10);
        await using var server = new DatagramServer(options, new EchoHandler());
        await server.StartAsync();
        EchoAFew(server);
        // Counted just after the send returns, so possibly a moment after the client has the reply.
        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsSent == 20));

        var statistics = server.GetStatistics();
        Assert.InRange(statistics.BusyPollDatagrams, 1, statistics.DatagramsReceived);
        Assert.Equal(statistics.BusyPollDatagrams, server.GetWorkerStatistics(0).BusyPollDatagrams);
    }

    [Fact]
    public async Task BusyPollOff_NothingIsCountedAsPickedUpBySpinning()
    {
        await using var server = new DatagramServer(LoopbackOptions(workers: 1), new EchoHandler());
        await server.StartAsync();
        EchoAFew(server);

        Assert.False(server.BusyPollEnabled);
        Assert.Equal(0, server.GetStatistics().BusyPollDatagrams);
    }

    [Theory]
    [InlineData(DatagramBackend.Portable, false)]
    [InlineData(DatagramBackend.Auto, true)]
    public async Task BusyPoll_AskedFor_IsReportedOnWhereTheBackendCanSpinAndOffElsewhere(DatagramBackend backend, bool spinsOnLinux)
    {
        var options = LoopbackOptions(workers: 1);
        options.Backend = backend;
        options.BusyPoll = TimeSpan.FromMicroseconds(50);
        await using var server = new DatagramServer(options, new EchoHandler());
        await server.StartAsync();

        Assert.Equal(spinsOnLinux && server.Backend == DatagramBackend.LinuxBatched, server.BusyPollEnabled);
        EchoAFew(server);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task KernelBusyPoll_AcceptedOrRefused_IsReportedAndTheServerRuns()
    {
        var options = LoopbackOptions(workers: 2);
        // Above net.core.busy_read (0 by default): needs CAP_NET_ADMIN, so either outcome may happen here.
        options.KernelBusyPollMicroseconds = 50;
        var logger = new CountingLogger();
        await using var server = new DatagramServer(options, new EchoHandler(), logger);
        await server.StartAsync();

        Assert.Equal(server.KernelBusyPollEnabled ? 0 : 1, logger.Warnings);
        EchoAFew(server);
    }

    private static void EchoAFew(DatagramServer server)
    {
        using var client = Client();
        var reply = new byte[16];
        for (var i = 0; i < 20; i++)
        {
            client.SendTo(Numbered(0, i), SocketFlags.None, server.LocalEndPoint);
            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            Assert.Equal(8, client.ReceiveFrom(reply, ref from));
            Assert.Equal(i, ReadNumbered(reply).Sequence);
        }
    }
}
