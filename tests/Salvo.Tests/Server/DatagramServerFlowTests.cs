using System.Net.Sockets;
using Salvo.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

public sealed class DatagramServerFlowTests
{
    private const int Flows = 64;
    private const int PerFlow = 20;

    [RequiresTheory(Requirement.Linux)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Inline)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Inline)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued)]
    public async Task ManyFlows_WithTwoWorkers_SpreadOverEveryWorkerAndKeepTheirOrder(ServerIoModel ioModel, ServerProcessing processing)
    {
        var handler = new RecordingHandler();
        var options = LoopbackOptions(workers: 2);
        options.IoModel = ioModel;
        options.Processing = processing;
        await using var server = new DatagramServer(options, handler);
        await server.StartAsync();
        Assert.Equal(2, server.SocketCount);

        await SendFlows(server, handler);

        var seen = handler.Seen;
        Assert.Equal(Flows * PerFlow, seen.Count);
        var workersPerFlow = seen.GroupBy(s => s.Flow).ToDictionary(g => g.Key, g => g.Select(s => s.Worker).Distinct().ToList());
        Assert.All(workersPerFlow.Values, workers => Assert.Single(workers));
        var flowsPerWorker = workersPerFlow.Values.GroupBy(w => w[0]).ToDictionary(g => g.Key, g => g.Count());
        Assert.True(flowsPerWorker.Count == 2, $"Every worker should see some of {Flows} flows; saw {string.Join(", ", flowsPerWorker)}.");
        foreach (var flow in seen.GroupBy(s => s.Flow))
        {
            Assert.Equal(Enumerable.Range(0, PerFlow), flow.Select(s => s.Sequence));
        }

        var perWorker = Enumerable.Range(0, 2).Select(server.GetWorkerStatistics).ToList();
        Assert.All(perWorker, w => Assert.True(w.DatagramsReceived > 0));
        Assert.Equal(server.GetStatistics().DatagramsReceived, perWorker.Sum(w => w.DatagramsReceived));
    }

    [Fact]
    public async Task ManyFlows_OnThePortableBackend_ShareOneSocketAndAllAreHandled()
    {
        var handler = new RecordingHandler();
        var options = LoopbackOptions(workers: 3);
        options.Backend = DatagramBackend.Portable;
        await using var server = new DatagramServer(options, handler);
        await server.StartAsync();
        Assert.Equal(1, server.SocketCount);
        Assert.Equal(DatagramBackend.Portable, server.Backend);

        await SendFlows(server, handler);

        var seen = handler.Seen;
        Assert.Equal(Flows * PerFlow, seen.Count);
        Assert.All(seen, s => Assert.InRange(s.Worker, 0, 2));
        foreach (var flow in seen.GroupBy(s => s.Flow))
        {
            Assert.Equal(Enumerable.Range(0, PerFlow), flow.Select(s => s.Sequence).Order());
        }
    }

    [Fact]
    public async Task Start_WithPortZero_BindsEveryWorkerToTheSamePort()
    {
        var options = LoopbackOptions(workers: 3);
        await using var server = new DatagramServer(options, new RecordingHandler());
        await server.StartAsync();
        Assert.NotEqual(0, server.LocalEndPoint.Port);
        Assert.Equal(3, server.WorkerCount);
        Assert.True(server.IsRunning);
    }

    /// <summary>Sends every flow's datagrams in order, one round at a time, and waits until all are handled.</summary>
    private static async Task SendFlows(DatagramServer server, RecordingHandler handler)
    {
        var clients = Enumerable.Range(0, Flows).Select(_ => Client()).ToArray();
        try
        {
            for (var sequence = 0; sequence < PerFlow; sequence++)
            {
                for (var flow = 0; flow < Flows; flow++)
                {
                    clients[flow].SendTo(Numbered(flow, sequence), SocketFlags.None, server.LocalEndPoint);
                }

                // One round in flight at a time keeps far below the receive buffer: no kernel drops.
                var expected = (sequence + 1) * Flows;
                Assert.True(await WaitUntil(() => handler.SeenCount >= expected), "The server stopped handling datagrams.");
            }
        }
        finally
        {
            foreach (var client in clients)
            {
                client.Dispose();
            }
        }
    }
}
