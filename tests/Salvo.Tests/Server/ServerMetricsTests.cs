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

        using var client = Client();
        var reply = new byte[Length];
        for (var i = 0; i < Sent; i++)
        {
            client.SendTo(new byte[Length], SocketFlags.None, server.LocalEndPoint);
            EndPoint from = new IPEndPoint(IPAddress.Any, 0);
            client.ReceiveFrom(reply, ref from);
        }

        // Replies are counted just after their send returns, possibly after the client has them.
        Assert.True(await WaitUntil(() => metrics.Sum("salvo.server.datagrams.sent") == Sent && metrics.Sum("salvo.server.bytes.sent") == Sent * Length));
        metrics.Observe();

        Assert.Equal(Sent, metrics.Sum("salvo.server.datagrams.received"));
        Assert.Equal(Sent * Length, metrics.Sum("salvo.server.bytes.received"));
        Assert.Equal(Sent * Length, metrics.Sum("salvo.server.bytes.sent"));
        Assert.Equal(Sent, metrics.Sum("salvo.server.batch.size"));
        Assert.True(metrics.Count("salvo.server.batch.size") >= 1);
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
        Assert.Equal("truncated", metrics.Tag("salvo.server.datagrams.dropped", "salvo.drop.reason"));
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
                    Interlocked.Add(ref received, value);
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
        Assert.True(await WaitUntil(() => Interlocked.Read(ref received) == 1));
        listener.RecordObservableInstruments();
        Assert.Equal(1, queueDepthObservations);

        // The factory owns the meter and keeps it after the server is gone; the server's gauges must go quiet.
        await server.DisposeAsync();
        listener.RecordObservableInstruments();
        Assert.Equal(1, queueDepthObservations);
    }

    /// <summary>Listens to the "Salvo" meter and keeps the measurements of one server (by its port tag).</summary>
    private sealed class ServerMeterRecorder : IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly ConcurrentDictionary<string, (long Sum, long Count)> _totals = new();
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
            _listener.SetMeasurementEventCallback<int>((i, value, tags, _) => Record(i, value, tags));
            _listener.Start();
        }

        public int Port { get; set; } = -1;

        public long Sum(string instrument) => _totals.TryGetValue(instrument, out var total) ? total.Sum : 0;

        public long Count(string instrument) => _totals.TryGetValue(instrument, out var total) ? total.Count : 0;

        public object? Tag(string instrument, string tag) => _tags.GetValueOrDefault((instrument, tag));

        public void Observe() => _listener.RecordObservableInstruments();

        public void Dispose() => _listener.Dispose();

        private void Record(Instrument instrument, long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            var ours = false;
            foreach (var tag in tags)
            {
                ours |= tag.Key == "server.port" && tag.Value is int port && port == Port;
            }

            if (!ours)
            {
                return;
            }

            foreach (var tag in tags)
            {
                _tags[(instrument.Name, tag.Key)] = tag.Value;
            }

            _totals.AddOrUpdate(instrument.Name, (value, 1), (_, total) => (total.Sum + value, total.Count + 1));
        }
    }
}
