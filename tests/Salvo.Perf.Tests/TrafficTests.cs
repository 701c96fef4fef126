using System.Net;
using Salvo.Perf.Rr;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.Tests;

[Collection(WholeProcessCollection.Name)]
public sealed class TrafficTests
{
    [Fact]
    public void SenderToReceiveEngine_ModestRate_AccountsEveryDatagram()
    {
        using var engine = new ReceiveEngine(new IPEndPoint(IPAddress.Loopback, 0), workers: 1, answerRequests: false);
        engine.BeginTest();
        using var sender = new TrafficSender(IPAddress.Loopback, [engine.LocalEndPoint, engine.LocalEndPoint], 1380, 4_000_000, 0.4);

        sender.Start();
        Assert.True(sender.Join(TimeSpan.FromSeconds(30)));
        var sent = sender.SentPerFlow;
        var totals = WaitForAll(engine, sent);

        Assert.True(sent.Sum() > 0);
        Assert.Equal(sent.Sum(), totals.Datagrams);
        Assert.Equal(0, totals.Lost);
        Assert.Equal(0, totals.Duplicates);
        Assert.Equal(0, totals.Malformed);
        Assert.Equal(sent.Sum() * 1380, totals.Bytes);
    }

    [Fact]
    public void ReceiveEngine_Garbage_IsCountedMalformedAndSurvived()
    {
        using var engine = new ReceiveEngine(new IPEndPoint(IPAddress.Loopback, 0), workers: 1, answerRequests: true);
        engine.BeginTest();
        using var client = new System.Net.Sockets.UdpClient(new IPEndPoint(IPAddress.Loopback, 0));

        client.Send(new byte[] { 1, 2, 3 }, 3, engine.LocalEndPoint);
        client.Send(new byte[100], 100, engine.LocalEndPoint);
        var totals = engine.Snapshot();
        for (var i = 0; i < 500 && totals.Malformed < 2; i++)
        {
            Thread.Sleep(10);
            totals = engine.Snapshot();
        }

        Assert.Equal(2, totals.Malformed);
        Assert.Equal(0, totals.Datagrams);
    }

    [Fact]
    public void Rr_InProcessResponder_AnswersEveryRequest()
    {
        // A second of traffic: on a shared 2-vCPU guest under steal, a few hundred milliseconds once saw no answer at all.
        var settings = new RrSettings(64, 2000, 2, 1, 1, 0.2, 0, null, 10_000);

        var result = RrRunner.Run(settings, null, CancellationToken.None);

        Assert.True(result.Completed > 0);
        Assert.Equal(0, result.Malformed);
        Assert.Equal(result.Completed, result.Latency.Count);
        Assert.True(result.Latency.P50Microseconds > 0);
    }

    [Fact]
    public void Rr_FixedRate_RecordsOneLatencyPerAnsweredRequest()
    {
        var settings = new RrSettings(64, 64, 1, 1, 0.3, 0.05, 500, null, 10_000);

        var result = RrRunner.Run(settings, null, CancellationToken.None);

        Assert.Equal("fixed-rate", result.Mode);
        Assert.Equal(result.Completed, result.Latency.Count);
        Assert.InRange(result.Completed + result.Lost, 100, 200);
    }

    private static ReceiveTotals WaitForAll(ReceiveEngine engine, long[] sent)
    {
        var totals = engine.Snapshot(sent);
        for (var i = 0; i < 500 && totals.Datagrams < sent.Sum(); i++)
        {
            Thread.Sleep(10);
            totals = engine.Snapshot(sent);
        }

        return totals;
    }
}
