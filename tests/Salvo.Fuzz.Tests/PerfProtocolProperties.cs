using System.Text.Json;
using CsCheck;
using Salvo.Perf.TestServer.Iperf3;
using Salvo.Perf.Protocol;
using Salvo.Perf.Reporting;
using Salvo.Perf.TestServer.Sockperf;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Fuzz.Tests;

/// <summary>Round trips of the wire formats salvo speaks with iperf3, sockperf and itself.</summary>
public sealed class PerfProtocolProperties
{
    [Fact]
    public void Iperf3Parameters_ToJson_ParsesBackEqual()
    {
        Gen.Select(Gen.Double[0.001, 86_400], Gen.Int[1, Iperf3Parameters.MaxParallel], Gen.Bool, Gen.Int[16, 65_507], Gen.Long[0, 1L << 50], Gen.Bool)
            .Sample((seconds, parallel, reverse, length, bandwidth, counters64) =>
            {
                var sent = new Iperf3Parameters(seconds, parallel, reverse, length, bandwidth, counters64);

                var parsed = Iperf3Parameters.Parse(sent.ToJson(), out _, out var reason);

                Assert.True(parsed is not null, reason);
                Assert.Equal(sent with { Ignored = parsed.Ignored }, parsed);
            });
    }

    [Fact]
    public void Iperf3Results_ToJson_ParsesBackEqual()
    {
        var stream = Gen.Select(Gen.Int[1, 1000], Gen.Long[0, long.MaxValue / 2], Gen.Double[0, 10], Gen.Long[0, 1L << 40], Gen.Long[0, 1L << 40], Gen.Long[0, 1L << 40], Gen.Double[0, 86_400])
            .Select((id, bytes, jitter, errors, packets, outOfOrder, end) => new Iperf3StreamResult(id, bytes, jitter, errors, packets, outOfOrder, end));

        Gen.Select(Gen.Double[0, 6400], stream.Array[0, 8]).Sample((cpu, streams) =>
        {
            var parsed = Iperf3Results.Parse(new Iperf3Results(cpu, streams).ToJson());

            Assert.Equal(cpu, parsed.CpuTotalPercent);
            Assert.Equal(streams, parsed.Streams);
        });
    }

    [Fact]
    public void Iperf3Datagram_Header_ReadsBackTimeAndCounter()
    {
        // Counters start at 1: a 0 is refused as no iperf3 packet.
        Gen.Select(Gen.Long[0, (long)uint.MaxValue * 1_000_000], Gen.UInt[1, uint.MaxValue], Gen.ULong[1, ulong.MaxValue], Gen.Bool).Sample((micros, counter32, counter64, wide) =>
        {
            var counter = wide ? counter64 : counter32;
            var datagram = new byte[Iperf3Datagram.HeaderSize(wide)];
            Iperf3Datagram.WriteHeader(datagram, micros, counter, wide);

            Assert.True(Iperf3Datagram.TryReadHeader(datagram, wide, out var readMicros, out var readCounter));
            Assert.Equal((micros, counter), (readMicros, readCounter));
        });
    }

    [Fact]
    public void SockperfRequest_ServerReply_IsReadAsTheAnswerToIt()
    {
        Gen.Select(Gen.Int[SockperfHeader.Size, 1400], Gen.ULong[0, 1UL << 40], Gen.Long[0, long.MaxValue / 2]).Sample((size, sequence, time) =>
        {
            var codec = new SockperfRrCodec(size, outstanding: 1);
            var request = new byte[size];
            codec.WriteRequest(request, slot: 0, sequence, time);

            Assert.Equal(SockperfHeaderError.None, SockperfHeader.TryRead(request, out var header));
            Assert.Equal((size, true), (header.Length, header.IsClient));
            Assert.Equal(SockperfVerdict.Reply, SockperfServerRules.DecideDatagram(request));
            var reply = new byte[size];
            SockperfServerRules.WriteReply(request, reply);
            Assert.Equal(Salvo.Perf.Rr.RrResponseKind.Answer, codec.ReadResponse(reply, out var answered));
            Assert.Equal((sequence, time), (answered.Sequence, answered.SendTimeNanoseconds));
        });
    }

    [Fact]
    public void PayloadHeader_Written_ReadsBackEqual()
    {
        Gen.Select(Gen.OneOf(Enum.GetValues<PayloadKind>()), Gen.UShort, Gen.ULong, Gen.Long).Sample((kind, flow, sequence, time) =>
        {
            var header = new PayloadHeader(kind, flow, sequence, time);
            var datagram = new byte[PayloadHeader.Size];
            header.Write(datagram);

            Assert.Equal(HeaderError.None, PayloadHeader.TryRead(datagram, out var read));
            Assert.Equal(header, read);
        });
    }

    [Fact]
    public void ControlMessage_Serialized_ParsesBackToTheSameLine()
    {
        var hello = Gen.Select(Gen.Int[24, 65_507], Gen.Long[0, 1L << 40], Gen.Double[0.001, 86_400], Gen.Int[1, ControlMessage.MaxParallel], Gen.Bool)
            .Select((length, rate, seconds, parallel, reverse) => new ControlMessage(
                "hello", ControlMessage.CurrentVersion, length, rate, seconds, parallel, reverse, reverse ? [.. Enumerable.Range(5201, parallel)] : null));
        var side = Gen.Select(Gen.OneOf("sender", "receiver"), Gen.Double[0, 86_400], Gen.Long[0, 1L << 40], Gen.Long[0, 1L << 50])
            .Select((role, seconds, datagrams, bytes) => new ControlMessage("result", Side: new SideReport(role, seconds, datagrams, bytes, bytes * 8 / Math.Max(seconds, 1), datagrams / Math.Max(seconds, 1))));
        var other = Gen.OneOf(
            Gen.Int[1, 65_535].Select(port => new ControlMessage("ready", UdpPort: port)),
            Gen.Long[0, long.MaxValue].Array[1, 8].Select(sent => new ControlMessage("done", Sent: sent)),
            Gen.String.Select(reason => new ControlMessage("error", Reason: reason)));

        Gen.OneOf(hello, side, other).Sample(message =>
        {
            var line = JsonSerializer.SerializeToUtf8Bytes(message, PerfJson.Compact.ControlMessage);

            var parsed = ControlChannel.Parse(line);

            Assert.Equal(line, JsonSerializer.SerializeToUtf8Bytes(parsed, PerfJson.Compact.ControlMessage));
            if (message.Type == "hello")
            {
                Assert.Null(parsed.ValidateHello());
            }
        });
    }
}
