using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Net;
using System.Net.Sockets;
using Salvo.Server;
using Salvo.Tests.Streams;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

public sealed class ServerMetricsTests
{
    [Fact]
    public async Task Metrics_MoveAsTrafficFlows_TaggedWithTheServersPort()
    {
        const int Sent = 50;
        const int Length = 100;
        var options = LoopbackOptions(workers: 2);
        options.Processing = ServerProcessing.Queued;
        await using var server = new DatagramServer(options, new EchoHandler());
        using var metrics = new ServerMeterRecorder();
        await server.StartAsync();
        metrics.Port = server.LocalEndPoint.Port;

        EchoOneByOne(server, Sent, Length);

        // Replies are counted just after their send returns, possibly after the client has them.
        Assert.True(await WaitUntil(() => metrics.Sum("salvo.server.datagrams.sent") == Sent && metrics.Sum("salvo.server.bytes.sent") == Sent * Length));
        metrics.Observe();

        Assert.Equal(Sent, metrics.Sum("salvo.server.datagrams.received"));
        Assert.Equal(Sent * Length, metrics.Sum("salvo.server.bytes.received"));
        Assert.Equal(Sent * Length, metrics.Sum("salvo.server.bytes.sent"));
        Assert.InRange(metrics.Sum("salvo.server.receive.calls"), 1, Sent);
        Assert.True(metrics.Count("salvo.server.queue.depth") >= 1);
        Assert.Equal(0, metrics.Sum("salvo.server.handler.errors"));
        Assert.Equal("udp", metrics.Tag("salvo.server.datagrams.received", "network.transport"));
        Assert.Equal("ipv4", metrics.Tag("salvo.server.datagrams.received", "network.type"));
        if (OperatingSystem.IsLinux())
        {
            // Read from /proc/net/udp: nothing was dropped at this pace.
            Assert.True(metrics.Count("salvo.server.kernel.drops") >= 1);
            Assert.Equal(0, server.GetStatistics().KernelDrops);
        }
    }

    [Fact]
    public async Task DropMetric_CarriesTheReason()
    {
        var options = LoopbackOptions(workers: 1);
        options.MaxDatagramSize = 10;
        options.QueueBytes = 10;
        await using var server = new DatagramServer(options, new EchoHandler());
        using var metrics = new ServerMeterRecorder();
        await server.StartAsync();
        metrics.Port = server.LocalEndPoint.Port;
        using var client = Client();
        client.SendTo(new byte[50], SocketFlags.None, server.LocalEndPoint);

        Assert.True(await WaitUntil(() => metrics.Sum("salvo.server.datagrams.dropped") == 1));
        Assert.Equal(1, metrics.Sum("salvo.server.datagrams.dropped", "truncated"));
        Assert.Equal(0, metrics.Sum("salvo.server.datagrams.dropped", "queue_full"));
    }

    [Fact]
    public async Task ReceivedDatagrams_ReadFromStatisticsAndMeter_AreCountedOnce()
    {
        const int Sent = 40;
        const int Length = 64;
        var options = LoopbackOptions(workers: 2);
        await using var server = new DatagramServer(options, new EchoHandler());
        using var metrics = new ServerMeterRecorder();
        await server.StartAsync();
        metrics.Port = server.LocalEndPoint.Port;

        EchoOneByOne(server, Sent, Length);

        Assert.True(await WaitUntil(() => server.GetStatistics().DatagramsSent == Sent));
        var statistics = server.GetStatistics();
        Assert.Equal(Sent, statistics.DatagramsReceived);
        Assert.Equal(Sent * Length, statistics.BytesReceived);
        Assert.Equal(Sent * Length, statistics.BytesSent);
        Assert.Equal(statistics.DatagramsReceived, Enumerable.Range(0, 2).Sum(w => server.GetWorkerStatistics(w).DatagramsReceived));
        Assert.Equal(Sent, metrics.Sum("salvo.server.datagrams.received"));
        Assert.Equal(Sent * Length, metrics.Sum("salvo.server.bytes.received"));
        Assert.Equal(Sent, metrics.Sum("salvo.server.datagrams.sent"));
        Assert.Equal(Sent * Length, metrics.Sum("salvo.server.bytes.sent"));
    }

    [Fact]
    public async Task MeterFactory_GivesTheServersMeter_WhoseObservationsEndWithTheServer()
    {
        using var meters = new TestMeterFactory();
        var options = LoopbackOptions();
        options.MeterFactory = meters;
        var received = 0L;
        var queueDepthObservations = 0;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Scope == meters)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, _, _) =>
        {
            switch (instrument.Name)
            {
                case "salvo.server.datagrams.received":
                    Interlocked.Exchange(ref received, value);
                    break;
                case "salvo.server.queue.depth":
                    Interlocked.Increment(ref queueDepthObservations);
                    break;
            }
        });
        listener.Start();
        var server = new DatagramServer(options, new EchoHandler());
        await server.StartAsync();

        using var client = Client();
        client.SendTo(new byte[10], SocketFlags.None, server.LocalEndPoint);
        EndPoint from = new IPEndPoint(IPAddress.Any, 0);
        client.ReceiveFrom(new byte[10], ref from);
        Assert.True(await WaitUntil(() =>
        {
            listener.RecordObservableInstruments();
            return Interlocked.Read(ref received) == 1;
        }));
        var observations = queueDepthObservations;
        Assert.True(observations >= 1);

        // The factory owns the meter and keeps it after the server is gone; the server's gauges must go quiet.
        await server.DisposeAsync();
        listener.RecordObservableInstruments();
        Assert.Equal(observations, queueDepthObservations);
    }

    /// <summary>Sends <paramref name="count"/> datagrams of <paramref name="length"/> bytes, each after the echo of the one before.</summary>
    private static void EchoOneByOne(DatagramServer server, int count, int length)
    {
        using var client = Client();
        var reply = new byte[length];
        for (var i = 0; i < count; i++)
        {
            client.SendTo(new byte[length], SocketFlags.None, server.LocalEndPoint);
            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            client.ReceiveFrom(reply, ref from);
        }
    }

    /// <summary>
    /// Listens to the "Salvo" meter and keeps the latest observation of one server's instruments (by its port tag), per
    /// drop reason; every read collects the observable instruments first.
    /// </summary>
    private sealed class ServerMeterRecorder : IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly ConcurrentDictionary<(string Instrument, string Reason), long> _latest = new();
        private readonly ConcurrentDictionary<string, long> _observations = new();
        private readonly ConcurrentDictionary<(string, string), object?> _tags = new();

        public ServerMeterRecorder()
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == "Salvo")
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>((i, value, tags, _) => Record(i, value, tags));
            _listener.Start();
        }

        public int Port { get; set; } = -1;

        public long Sum(string instrument, string? reason = null)
        {
            Observe();
            return _latest.Where(e => e.Key.Instrument == instrument && (reason is null || e.Key.Reason == reason)).Sum(e => e.Value);
        }

        public long Count(string instrument)
        {
            Observe();
            return _observations.GetValueOrDefault(instrument);
        }

        public object? Tag(string instrument, string tag) => _tags.GetValueOrDefault((instrument, tag));

        public void Observe() => _listener.RecordObservableInstruments();

        public void Dispose() => _listener.Dispose();

        private void Record(Instrument instrument, long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            var ours = false;
            var reason = "";
            foreach (var tag in tags)
            {
                ours |= tag.Key == "server.port" && tag.Value is int port && port == Port;
                reason = tag.Key == "error.type" ? (string)tag.Value! : reason;
            }

            if (!ours)
            {
                return;
            }

            foreach (var tag in tags)
            {
                _tags[(instrument.Name, tag.Key)] = tag.Value;
            }

            _latest[(instrument.Name, reason)] = value;
            _observations.AddOrUpdate(instrument.Name, 1, (_, count) => count + 1);
        }
    }
}
