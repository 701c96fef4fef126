using System.Buffers;
using System.Net.Sockets;
using Microsoft.Extensions.Diagnostics.Metrics.Testing;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Testing;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

public sealed class StreamFaultIsolationTests
{
    private const int Limit = 1024;

    public static TheoryData<string, byte[], StreamCloseReason, string> BadInputs() => new()
    {
        // A length prefix announcing 1 MiB against a 1 KiB limit: refused from the header alone.
        { "length-prefix", [0x00, 0x10, 0x00, 0x00, 0x41], StreamCloseReason.OversizeFrame, "oversize_frame" },
        // Bytes between frames.
        { "delimited", [0x02, 0x41, 0x03, 0x41, 0x42], StreamCloseReason.MalformedFrame, "malformed_frame" },
        // An escape of a byte that needs none.
        { "delimited", [0x02, 0x10, 0x41, 0x03], StreamCloseReason.MalformedFrame, "malformed_frame" },
        // No ETX within the limit.
        { "delimited", [0x02, .. Enumerable.Repeat((byte)0x41, Limit + 1)], StreamCloseReason.OversizeFrame, "oversize_frame" },
    };

    [Theory]
    [MemberData(nameof(BadInputs))]
    public async Task BadFrame_OnOneConnection_ClosesOnlyIt_AndTheOtherGetsEveryMessage(
        string framing, byte[] garbage, StreamCloseReason expected, string tag)
    {
        IMessageFramer framer = framing == "delimited" ? new DelimitedFramer(Limit) : new LengthPrefixFramer(Limit);
        using var meters = new TestMeterFactory();
        using var closes = new MetricCollector<long>(meters, "Salvo", "salvo.stream.connections.closed");
        var logger = new FakeLogger();
        var serverHandler = new RecordingHandler { Echo = true };
        await using var server = new StreamServer(
            new StreamServerOptions { Framer = framer, Logger = logger, MeterFactory = meters }, serverHandler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions { Framer = framer }, new RecordingHandler());
        var good = await client.ConnectAsync(server.LocalEndPoint!);
        await serverHandler.NextConnectionAsync();
        using var bad = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await bad.ConnectAsync(server.LocalEndPoint!);
        var badOnServer = await serverHandler.NextConnectionAsync();

        // The good connection has messages in flight both ways while the bad one breaks the framing.
        var messages = Enumerable.Range(0, 400).Select(i => StreamTestKit.Message(i, i % 300)).ToArray();
        for (var i = 0; i < messages.Length; i++)
        {
            if (i == messages.Length / 2)
            {
                await bad.SendAsync(garbage);
            }

            Assert.True(await good.SendAsync(messages[i]));
        }

        // The server ends the bad stream (graceful: FIN, not a reset).
        var sink = new byte[4096];
        while (await bad.ReceiveAsync(sink.AsMemory()).AsTask().WaitAsync(RecordingHandler.Patience) > 0)
        {
        }

        bad.Dispose();

        foreach (var message in messages)
        {
            Assert.Equal(message, await RecordingHandler.ReceiveAsync(good));
        }

        Assert.True(await good.SendAsync(new byte[] { 1, 2, 3 }));
        Assert.Equal([1, 2, 3], await RecordingHandler.ReceiveAsync(good));

        await badOnServer.Completion.WaitAsync(RecordingHandler.Patience);
        Assert.Equal(expected, badOnServer.CloseReason);
        Assert.True(good.IsOpen);
        Assert.Equal(1, server.ConnectionCount);
        var record = Assert.Single(logger.Collector.GetSnapshot(), r => r.Level == LogLevel.Warning);
        Assert.Contains(expected.ToString(), record.Message, StringComparison.Ordinal);
        var measurement = Assert.Single(closes.GetMeasurementSnapshot());
        Assert.Equal(tag, measurement.Tags["error.type"]);
    }

    [Fact]
    public async Task StreamEndsInsideAFrame_ClosesAsMalformed_AfterTheWholeFramesBeforeIt()
    {
        var logger = new FakeLogger();
        var serverHandler = new RecordingHandler();
        await using var server = new StreamServer(new StreamServerOptions { Logger = logger }, serverHandler);
        server.Start();
        using var peer = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await peer.ConnectAsync(server.LocalEndPoint!);
        var connection = await serverHandler.NextConnectionAsync();

        // One whole frame, then 3 of the 10 bytes the next one announces, then end of stream.
        await peer.SendAsync(new byte[] { 0, 0, 0, 1, 0x41, 0, 0, 0, 10, 1, 2, 3 });
        peer.Shutdown(SocketShutdown.Send);

        await connection.Completion.WaitAsync(RecordingHandler.Patience);
        Assert.Equal([0x41], await RecordingHandler.ReceiveAsync(connection));
        Assert.Equal(StreamCloseReason.MalformedFrame, connection.CloseReason);
        Assert.Contains(logger.Collector.GetSnapshot(), r => r.Level == LogLevel.Warning && r.Message.Contains("7 bytes", StringComparison.Ordinal));
    }

    [Fact]
    public async Task HandlerThrows_OnOneConnection_ClosesOnlyIt_WithTheErrorLogged()
    {
        var logger = new FakeLogger();
        var handler = StreamHandler.Create(async (connection, message) =>
        {
            if (message.FirstSpan.SequenceEqual("boom"u8))
            {
                throw new InvalidOperationException("handler failed on purpose");
            }

            await connection.SendAsync(message.ToArray());
        });
        await using var server = new StreamServer(new StreamServerOptions { Logger = logger }, handler);
        server.Start();
        await using var client = new StreamClient(new StreamClientOptions(), new RecordingHandler());
        var victim = await client.ConnectAsync(server.LocalEndPoint!);
        var bystander = await client.ConnectAsync(server.LocalEndPoint!);

        Assert.True(await victim.SendAsync("boom"u8.ToArray()));
        await victim.Completion.WaitAsync(RecordingHandler.Patience);
        Assert.True(await bystander.SendAsync("still here"u8.ToArray()));

        Assert.Equal("still here"u8.ToArray(), await RecordingHandler.ReceiveAsync(bystander));
        var error = Assert.Single(logger.Collector.GetSnapshot(), r => r.Level == LogLevel.Error);
        Assert.Equal("handler failed on purpose", error.Exception?.Message);
    }
}
