using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Net.Sockets;
using Salvo.Server;
using Salvo.Streams;
using static Salvo.Tests.Server.ServerTestSupport;

namespace Salvo.Tests.Server;

/// <summary>One meter and one drop-reason tag for everything the library publishes (server and streams).</summary>
public sealed class MeterPolicyTests
{
    [Fact]
    public async Task Instruments_OfServerAndStreams_UseTheSalvoMeterAndTheErrorTypeTag()
    {
        var meters = new ConcurrentDictionary<string, string>();
        var tagKeys = new ConcurrentDictionary<(string Instrument, string Key), bool>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Name.StartsWith("salvo.", StringComparison.Ordinal))
            {
                meters[instrument.Name] = instrument.Meter.Name;
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, _, tags, _) =>
        {
            foreach (var tag in tags)
            {
                tagKeys[(instrument.Name, tag.Key)] = true;
            }
        });
        listener.Start();

        var options = LoopbackOptions(workers: 1);
        options.MaxDatagramSize = 10;
        await using var server = new DatagramServer(options, new EchoHandler());
        await server.StartAsync();
        using var client = Client();
        client.SendTo(new byte[50], SocketFlags.None, server.LocalEndPoint);
        Assert.True(await WaitUntil(() => server.GetStatistics().DroppedByReason[DatagramDropReason.Truncated] == 1));

        var handler = new Salvo.Tests.Streams.RecordingHandler();
        await using var streams = new StreamServer(new StreamServerOptions(), handler);
        streams.Start();
        using (var peer = new Socket(SocketType.Stream, ProtocolType.Tcp))
        {
            await peer.ConnectAsync(streams.LocalEndPoint!);
            var connection = await handler.NextConnectionAsync();
            peer.Close();
            await connection.Completion.WaitAsync(Salvo.Tests.Streams.RecordingHandler.Patience);
        }

        listener.RecordObservableInstruments();

        Assert.Contains("salvo.server.datagrams.dropped", meters.Keys);
        Assert.Contains("salvo.stream.connections.closed", meters.Keys);
        Assert.All(meters, m => Assert.Equal("Salvo", m.Value));
        Assert.True(tagKeys.ContainsKey(("salvo.server.datagrams.dropped", "error.type")));
        Assert.True(tagKeys.ContainsKey(("salvo.stream.connections.closed", "error.type")));
        Assert.DoesNotContain(tagKeys.Keys, k => k.Key is "reason" or "salvo.drop.reason");
    }
}
