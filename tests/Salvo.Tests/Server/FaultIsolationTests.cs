using System.Runtime.Versioning;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Salvo.Server;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

public sealed class FaultIsolationTests
{
    private const int Rounds = 5;

    [Theory]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Inline)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Inline)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued)]
    public Task ThrowingHandler_DoesNotStopItsWorker_AndEveryErrorIsCounted(ServerIoModel ioModel, ServerProcessing processing) =>
        ThrowingHandler_DoesNotStopItsWorker_AndEveryErrorIsCounted_With(DatagramBackend.Auto, ioModel, processing);

    [RequiresTheory(Requirement.IoUring)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Inline)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Inline)]
    [InlineData(ServerIoModel.DedicatedThread, ServerProcessing.Queued)]
    [InlineData(ServerIoModel.Async, ServerProcessing.Queued)]
    [SupportedOSPlatform("linux")]
    public Task ThrowingHandler_DoesNotStopItsWorker_AndEveryErrorIsCounted_OnIoUring(ServerIoModel ioModel, ServerProcessing processing) =>
        ThrowingHandler_DoesNotStopItsWorker_AndEveryErrorIsCounted_With(DatagramBackend.IoUring, ioModel, processing);

    private static async Task ThrowingHandler_DoesNotStopItsWorker_AndEveryErrorIsCounted_With(DatagramBackend backend, ServerIoModel ioModel, ServerProcessing processing)
    {
        var options = LoopbackOptions(workers: 1);
        options.Backend = backend;
        options.IoModel = ioModel;
        options.Processing = processing;
        var logger = new CountingLogger();
        await using var server = new DatagramServer(options, new ThrowOnBoomHandler(), logger);
        await server.StartAsync();
        using var client = Client();
        var reply = new byte[16];

        for (var round = 0; round < Rounds; round++)
        {
            client.SendTo("boom"u8, SocketFlags.None, server.LocalEndPoint);
            var errors = round + 1;
            Assert.True(await WaitUntil(() => server.GetStatistics().HandlerErrors == errors), "The failure was not counted.");

            // The same worker still answers after its handler threw.
            client.SendTo("ping"u8, SocketFlags.None, server.LocalEndPoint);
            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            var length = client.ReceiveFrom(reply, ref from);
            Assert.Equal("ping"u8.ToArray(), reply[..length]);
        }

        var stats = server.GetStatistics();
        Assert.Equal(Rounds, stats.HandlerErrors);
        Assert.Equal(2 * Rounds, stats.DatagramsHandled);
        Assert.InRange(logger.Errors, 1, Rounds);
    }

    [Fact]
    public async Task ThrowingHandler_WithoutALoggerPassed_IsLoggedToTheOptionsLogger()
    {
        var options = LoopbackOptions(workers: 1);
        var logger = new CountingLogger();
        options.Socket.Logger = logger;
        await using var server = new DatagramServer(options, new ThrowOnBoomHandler());
        await server.StartAsync();
        using var client = Client();

        client.SendTo("boom"u8, SocketFlags.None, server.LocalEndPoint);

        Assert.True(await WaitUntil(() => logger.Errors == 1), "The handler's failure did not reach the options' logger.");
    }

    [Fact]
    public async Task ThrowingHandler_FailingOnEveryBatch_IsLoggedAtMostOncePerSecondWithTheSuppressedCount()
    {
        const int Failures = 200;
        var logger = new CountingLogger();
        await using var server = new DatagramServer(LoopbackOptions(workers: 1), new ThrowOnBoomHandler(), logger);
        await server.StartAsync();
        using var client = Client();
        for (var i = 0; i < Failures; i++)
        {
            client.SendTo("boom"u8, SocketFlags.None, server.LocalEndPoint);
            var errors = i + 1;
            Assert.True(await WaitUntil(() => server.GetStatistics().HandlerErrors == errors));
        }

        // One entry, then one a second at most: 200 failures in a few seconds give far fewer entries.
        Assert.InRange(logger.Errors, 1, Failures / 2);
    }

    [Fact]
    public async Task Truncated_Datagrams_AreDroppedAndCounted_AndTheRestIsEchoed()
    {
        var options = LoopbackOptions(workers: 1);
        options.MaxDatagramSize = 100;
        options.QueueBytes = 100;
        await using var server = new DatagramServer(options, new EchoHandler());
        await server.StartAsync();
        using var client = Client();

        client.SendTo(new byte[200], SocketFlags.None, server.LocalEndPoint);
        Assert.True(await WaitUntil(() => server.GetStatistics().DroppedByReason[DatagramDropReason.Truncated] == 1));
        client.SendTo(new byte[100], SocketFlags.None, server.LocalEndPoint);
        var reply = new byte[300];
        EndPoint from = new IPEndPoint(IPAddress.Any, 0);
        Assert.Equal(100, client.ReceiveFrom(reply, ref from));

        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsSent == 1));
        var stats = server.GetStatistics();
        Assert.Equal(2, stats.DatagramsReceived);
        Assert.Equal(1, stats.DatagramsHandled);
    }

    [Fact]
    public async Task Truncated_Datagrams_WithDeliverTruncated_ReachTheHandlerMarkedAndCut()
    {
        var options = LoopbackOptions(workers: 1);
        options.MaxDatagramSize = 100;
        options.DeliverTruncated = true;
        var handler = new TruncationRecorder();
        await using var server = new DatagramServer(options, handler);
        await server.StartAsync();
        using var client = Client();

        client.SendTo(new byte[200], SocketFlags.None, server.LocalEndPoint);
        Assert.True(await WaitUntil(() => handler.Calls == 1));
        Assert.Equal((100, true), handler.Last);
        Assert.Equal(0, server.GetStatistics().DroppedByReason[DatagramDropReason.Truncated]);
    }

    private sealed class TruncationRecorder : IDatagramHandler
    {
        private int _calls;

        public (int Length, bool IsTruncated) Last { get; private set; }

        public int Calls => Volatile.Read(ref _calls);

        public void Handle(in DatagramContext context)
        {
            foreach (var datagram in context.Datagrams)
            {
                Last = (datagram.Length, datagram.IsTruncated);
            }

            // Published after Last: a reader that sees the call sees what it recorded.
            Interlocked.Increment(ref _calls);
        }
    }

    /// <summary>Echoes every datagram, then throws if any of them was "boom".</summary>
    private sealed class ThrowOnBoomHandler : IDatagramHandler
    {
        public void Handle(in DatagramContext context)
        {
            var boom = false;
            foreach (var datagram in context.Datagrams)
            {
                if (datagram.Payload.SequenceEqual("boom"u8))
                {
                    boom = true;
                }
                else
                {
                    context.Replies.Add(datagram.Payload, datagram.Source);
                }
            }

            if (boom)
            {
                throw new InvalidOperationException("boom");
            }
        }
    }
}

/// <summary>Counts error and warning entries (thread-safe).</summary>
internal sealed class CountingLogger : ILogger
{
    private int _errors;
    private int _warnings;

    public int Errors => Volatile.Read(ref _errors);

    public int Warnings => Volatile.Read(ref _warnings);

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        if (logLevel >= LogLevel.Error)
        {
            Interlocked.Increment(ref _errors);
        }
        else if (logLevel == LogLevel.Warning)
        {
            Interlocked.Increment(ref _warnings);
        }
    }
}
