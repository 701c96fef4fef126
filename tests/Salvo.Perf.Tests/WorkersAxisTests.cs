using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Salvo.Perf.Loopback;

namespace Salvo.Perf.Tests;

/// <summary>The workers axis of <c>salvo loopback</c>: a DatagramServer per worker count.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class WorkersAxisTests
{
    [Fact]
    public async Task Workers_AddAServerMethodPerCount_EachReceivingDatagrams()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-m", "salvo", "--workers", "1,2", "-t", "0.5", "--warmup", "0.2", "-l", "512", "--repeat", "1", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var samples = document.RootElement.GetProperty("samples").EnumerateArray().ToList();
        Assert.Equal(["salvo", "server-w1", "server-w2"], samples.Select(s => s.GetProperty("method").GetString()));
        Assert.All(samples, s => Assert.True(s.GetProperty("received").GetInt64() > 0, s.GetRawText()));
    }

    [Fact]
    public void SeveralSenderThreads_EachSendItsShare_AndTheMeterCountsThemAll()
    {
        // A window far longer than the run, so that only the datagram bound stops the senders: three threads with
        // 2,000 each, plus the one left over, must report 6,001 sent; a lost helper count would show as 2,001 or 4,001,
        // a lost remainder as 6,000.
        const int Threads = 3;
        const long Datagrams = 6_001;
        var method = new ServerMethod(workers: 2, senders: Threads);
        var point = new LoopbackPoint(64, 1 << 20, 1, IPAddress.Loopback);
        using var receiver = method.CreateReceiver(point);
        using var sender = method.CreateSender(point, receiver.LocalEndPoint);
        var now = Stopwatch.GetTimestamp();
        var meter = new EndpointMeter(now, now + (Stopwatch.Frequency * 600));

        sender.Run(meter, Datagrams);

        Assert.Equal(Threads, method.SenderThreads);
        Assert.Equal(Datagrams, meter.Datagrams);
        Assert.Equal(Datagrams * 64, meter.Bytes);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("two")]
    [InlineData("1,2000")]
    public async Task InvalidWorkerCount_FailsNamingTheOption(string value)
    {
        var (exit, _, error) = await Cli.RunAsync("loopback", "--workers", value);
        Assert.Equal(2, exit);
        Assert.Contains("--workers", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ServerMethod_CanBeNamedDirectly()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-m", "server-w2", "-t", "0.2", "--warmup", "0.05", "-l", "64", "--repeat", "1", "--json");
        Assert.True(exit == 0, error);
        Assert.Contains("\"server-w2\"", output, StringComparison.Ordinal);
    }
}
