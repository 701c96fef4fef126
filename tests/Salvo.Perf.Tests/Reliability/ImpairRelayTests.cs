using System.Globalization;
using System.Net;
using Salvo.Perf.Impair;
using Salvo.Perf.Measurement;
using Salvo.Perf.TestServer.Traffic;
using Salvo.Server;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>The relay on loopback sockets, in-process: what it says it did is what the endpoints see.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class ImpairRelayTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(20);

    [Theory]
    [InlineData(42UL)]
    [InlineData(7UL)]
    public void Relay_SeededImpairments_ReceiverLossDuplicatesAndOrderEqualWhatTheRelayDid(ulong seed)
    {
        using var engine = new ReceiveEngine(new IPEndPoint(IPAddress.Loopback, 0), workers: 1, answerRequests: false);
        engine.BeginTest();
        using var relay = new ImpairRelay(new ImpairOptions
        {
            Listen = new IPEndPoint(IPAddress.Loopback, 0),
            Forward = engine.LocalEndPoint,
            Drop = 0.05,
            Duplicate = 0.02,
            Reorder = 0.03,
            DelayMax = TimeSpan.FromMilliseconds(2),
            Seed = seed,
        });
        relay.Start();
        var kernelDropsBefore = UdpSnmp.ReadCounter("RcvbufErrors") ?? 0;

        // 2,000 datagrams/s of 256 bytes for 1.5 s: far below what loopback or the relay can take.
        using var sender = new TrafficSender(IPAddress.Loopback, [relay.ListenEndPoint], 256, 256 * 8 * 2000, 1.5);
        sender.Start();
        Assert.True(sender.Join(Bound));
        var sent = sender.SentPerFlow;
        Assert.True(Eventually.True(() => relay.Report().ClientToServer.Received == sent[0] && relay.Pending == 0, Bound),
            $"relay received {relay.Report().ClientToServer.Received} of {sent[0]} (kernel RcvbufErrors +{(UdpSnmp.ReadCounter("RcvbufErrors") ?? 0) - kernelDropsBefore})");
        var did = relay.Report().ClientToServer;
        Assert.True(Eventually.True(() => engine.Snapshot(sent).Datagrams == did.Forwarded, Bound),
            $"receiver got {engine.Snapshot(sent).Datagrams} of {did.Forwarded} forwarded (kernel RcvbufErrors +{(UdpSnmp.ReadCounter("RcvbufErrors") ?? 0) - kernelDropsBefore})");
        var saw = engine.Snapshot(sent);

        Assert.True(did.Dropped > 0 && did.Duplicated > 0 && did.Reordered > 0, $"too few impairments to test: {did}");
        Assert.Equal(did.Dropped, saw.Lost);
        Assert.Equal(did.Duplicated, saw.Duplicates);
        Assert.Equal(did.Reordered, saw.OutOfOrder);
        Assert.Equal(0, saw.Malformed);
        Assert.Equal(0, did.SendErrors);
        Assert.Equal(did.Received - did.Dropped + did.Duplicated, did.Forwarded);
    }

    [Fact]
    public void Relay_DisposedWithoutStarting_ClosesQuietly()
    {
        // What 'salvo impair --tcp' does when the TCP side cannot listen: the relay is disposed before it started.
        // Its threads are Background | Unstarted then, and joining one threw ThreadStateException, which hid the
        // real error behind "internal error".
        var relay = new ImpairRelay(new ImpairOptions { Listen = new IPEndPoint(IPAddress.Loopback, 0), Forward = new IPEndPoint(IPAddress.Loopback, 9) });

        var error = Record.Exception(relay.Dispose);

        Assert.Null(error);
    }

    [Fact]
    public async Task Relay_TwoClients_EachGetsItsOwnRepliesBack()
    {
        await using var echo = new DatagramServer(new DatagramServerOptions { EndPoint = new IPEndPoint(IPAddress.Loopback, 0), Workers = 1 }, new EchoHandler());
        await echo.StartAsync();
        using var relay = new ImpairRelay(new ImpairOptions { Listen = new IPEndPoint(IPAddress.Loopback, 0), Forward = echo.LocalEndPoint });
        relay.Start();
        using var a = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        using var b = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var target = DatagramAddress.FromIPEndPoint(relay.ListenEndPoint);

        var gotA = await ExchangeAsync(a, (byte)'A', target);
        var gotB = await ExchangeAsync(b, (byte)'B', target);

        Assert.Equal(Enumerable.Repeat((byte)'A', 20), gotA);
        Assert.Equal(Enumerable.Repeat((byte)'B', 20), gotB);
        var report = relay.Report();
        Assert.Equal(2, report.Sessions);
        Assert.Equal(40, report.ClientToServer.Forwarded);
        Assert.Equal(40, report.ServerToClient.Forwarded);
    }

    [Fact]
    public void Relay_Stop_SendsWhatIsStillHeldAndCountsIt()
    {
        using var receiver = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var relay = new ImpairRelay(new ImpairOptions
        {
            Listen = new IPEndPoint(IPAddress.Loopback, 0),
            Forward = receiver.LocalEndPoint,
            Reorder = 1,
            ReorderGap = 1000,
            ReorderHold = TimeSpan.FromSeconds(10),
        });
        relay.Start();
        using var client = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var batch = new SendBatch(5, 16);
        for (var i = 0; i < 5; i++)
        {
            batch.Add(new byte[] { (byte)i }, DatagramAddress.FromIPEndPoint(relay.ListenEndPoint));
        }

        Assert.Equal(5, client.Send(batch));
        Assert.True(Eventually.True(() => relay.Pending == 5, Bound));

        relay.Dispose();

        var received = new ReceiveBatch(8, 64);
        var got = 0;
        while (got < 5 && receiver.Receive(received, TimeSpan.FromSeconds(5)) is > 0 and var n)
        {
            got += n;
        }

        Assert.Equal(5, got);
        var report = relay.Report().ClientToServer;
        Assert.Equal(5, report.Held);
        Assert.Equal(5, report.Forwarded);
        Assert.Equal(0, report.Pending);
    }

    [Fact]
    public void Relay_IdleClientForgotten_KeepsItsCountsAndANewSessionOpensOnItsReturn()
    {
        using var receiver = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        using var relay = new ImpairRelay(new ImpairOptions
        {
            Listen = new IPEndPoint(IPAddress.Loopback, 0),
            Forward = receiver.LocalEndPoint,
            SessionIdle = TimeSpan.FromMilliseconds(200),
        });
        relay.Start();
        using var client = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var batch = new SendBatch(1, 16);
        batch.Add(new byte[1], DatagramAddress.FromIPEndPoint(relay.ListenEndPoint));

        Assert.Equal(1, client.Send(batch));
        Assert.True(Eventually.True(() => relay.Report().ClientToServer.Forwarded == 1, Bound));
        Assert.True(Eventually.True(() => relay.ActiveSessions == 0, Bound));
        Assert.Equal(1, relay.Report().ClientToServer.Forwarded);

        Assert.Equal(1, client.Send(batch));
        Assert.True(Eventually.True(() => relay.Report().ClientToServer.Forwarded == 2, Bound));
        Assert.Equal(2, relay.Report().Sessions);
    }

    [RequiresFact(Requirement.Linux)]
    public void Relay_ListensOnlyOnTheGivenAddress()
    {
        using var relay = new ImpairRelay(new ImpairOptions { Listen = new IPEndPoint(IPAddress.Loopback, 0), Forward = new IPEndPoint(IPAddress.Loopback, 9) });
        relay.Start();
        var port = relay.ListenEndPoint.Port;

        Assert.Equal(["0100007F"], Listeners("/proc/net/udp", port));
        using var client = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var batch = new SendBatch(2, 16);
        batch.Add(new byte[1], DatagramAddress.Create(IPAddress.Parse("127.0.0.2"), port));
        batch.Add(new byte[1], DatagramAddress.Create(IPAddress.Loopback, port));
        client.Send(batch);

        // Loopback keeps order: once the second datagram is in, the first would have been too.
        Assert.True(Eventually.True(() => relay.Report().ClientToServer.Received >= 1, Bound));
        Assert.Equal(1, relay.Report().ClientToServer.Received);
    }

    /// <summary>The local addresses (hex, as the kernel prints them) of sockets bound to <paramref name="port"/>.</summary>
    internal static List<string> Listeners(string table, int port) => File.ReadLines(table).Skip(1)
        .Select(line => line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1].Split(':'))
        .Where(local => int.Parse(local[1], NumberStyles.HexNumber, CultureInfo.InvariantCulture) == port)
        .Select(local => local[0])
        .ToList();

    private static async Task<List<byte>> ExchangeAsync(DatagramSocket socket, byte tag, DatagramAddress target)
    {
        var got = new List<byte>();
        var buffer = new byte[64];
        for (var i = 0; i < 20; i++)
        {
            await socket.SendToAsync(new[] { tag }, target);
            var result = await socket.ReceiveFromAsync(buffer).AsTask().WaitAsync(Bound);
            got.AddRange(buffer.AsSpan(0, result.Length).ToArray());
        }

        return got;
    }
}
