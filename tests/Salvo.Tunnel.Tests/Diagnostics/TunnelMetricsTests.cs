using System.Diagnostics.Metrics;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Diagnostics;

/// <summary>The engine's instruments on meter "Salvo", read the way dotnet-counters and OpenTelemetry read them.</summary>
public sealed class TunnelMetricsTests
{
    [Fact]
    public void Instruments_ReportTrafficHandshakesAndDropsByReason()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        var transport = SealedTransport(pair);
        pair.Bob.ReceiveDatagram(transport.ToArray(), pair.AliceSource, pair.BobOut);
        pair.Bob.ReceiveDatagram(transport.ToArray(), pair.AliceSource, pair.BobOut);
        var flipped = SealedTransport(pair);
        flipped[^1] ^= 1;
        pair.Bob.ReceiveDatagram(flipped, pair.AliceSource, pair.BobOut);
        pair.Bob.ReceiveDatagram(new byte[] { 9, 0, 0, 0, 1 }, pair.AliceSource, pair.BobOut);

        var seen = Collect(pair.Bob.PublicKey!.ToString());

        Assert.Equal(2, seen[("salvo.tunnel.packets.received", "")]);
        Assert.Equal(56, seen[("salvo.tunnel.bytes.received", "")]);
        Assert.Equal(1, seen[("salvo.tunnel.packets.sent", "")]);
        Assert.Equal(28, seen[("salvo.tunnel.bytes.sent", "")]);
        Assert.Equal(1, seen[("salvo.tunnel.handshakes", "responder")]);
        Assert.Equal(0, seen[("salvo.tunnel.handshakes", "initiator")]);
        Assert.Equal(1, seen[("salvo.tunnel.replays.rejected", "")]);
        Assert.Equal(1, seen[("salvo.tunnel.decryption.failures", "")]);
        Assert.Equal(1, seen[("salvo.tunnel.dropped", "replayed")]);
        Assert.Equal(1, seen[("salvo.tunnel.dropped", "decryption_failed")]);
        Assert.Equal(1, seen[("salvo.tunnel.dropped", "malformed")]);
        Assert.Equal(0, seen[("salvo.tunnel.dropped", "source_not_allowed")]);
        Assert.Equal(1, Collect(pair.Alice.PublicKey!.ToString())[("salvo.tunnel.handshakes", "initiator")]);
    }

    /// <summary>One transport message from Alice to Bob carrying a 28-byte packet, taken off the wire.</summary>
    [Fact]
    public void Instruments_OfTheTunnel_UseTheSalvoMeterAndTheErrorTypeTag()
    {
        var meters = new Dictionary<string, string>();
        var dropTagKeys = new HashSet<string>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Name.StartsWith("salvo.tunnel.", StringComparison.Ordinal))
            {
                meters[instrument.Name] = instrument.Meter.Name;
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, _, tags, _) =>
        {
            if (instrument.Name == "salvo.tunnel.dropped")
            {
                foreach (var tag in tags)
                {
                    dropTagKeys.Add(tag.Key);
                }
            }
        });
        listener.Start();
        using var pair = new TunnelPair();

        listener.RecordObservableInstruments();

        Assert.Contains("salvo.tunnel.dropped", meters.Keys);
        Assert.All(meters, m => Assert.Equal("Salvo", m.Value));
        Assert.Equal(["error.type", "salvo.tunnel.name"], dropTagKeys.Order());
    }

    private static byte[] SealedTransport(TunnelPair pair)
    {
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        return pair.AliceOut.TakeDatagrams()[0].Bytes;
    }

    /// <summary>Every observable measurement of the tunnel named <paramref name="tunnel"/> (by default its public key, unique per test), keyed by instrument and its role or reason tag.</summary>
    private static Dictionary<(string Instrument, string Tag), long> Collect(string tunnel)
    {
        var seen = new Dictionary<(string, string), long>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == "Salvo" && instrument.Name.StartsWith("salvo.tunnel.", StringComparison.Ordinal))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            var name = string.Empty;
            var tag = string.Empty;
            foreach (var pairTag in tags)
            {
                if (pairTag.Key == "salvo.tunnel.name")
                {
                    name = (string)pairTag.Value!;
                }
                else if (pairTag.Key is "salvo.tunnel.role" or "error.type")
                {
                    tag = (string)pairTag.Value!;
                }
            }

            if (name == tunnel)
            {
                seen[(instrument.Name, tag)] = value;
            }
        });
        listener.Start();
        listener.RecordObservableInstruments();
        return seen;
    }
}
