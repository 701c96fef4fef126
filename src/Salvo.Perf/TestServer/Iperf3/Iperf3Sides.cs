using Salvo.Perf.Measurement;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>Turns one test's streams into Salvo's side reports and iperf3's results JSON, the same way on server and client.</summary>
internal static class Iperf3Sides
{
    /// <summary>The receiving side over all streams; loss counts against the sender's per-stream counts when known.</summary>
    public static SideReport Receiver(IReadOnlyList<Iperf3StreamCounter> streams, IReadOnlyList<long>? sentPerStream, double seconds, TimeSpan cpu, DatagramBackend backend)
    {
        var counts = streams.Select(r => r.Counts).ToArray();
        long lost = 0, expected = 0;
        for (var i = 0; i < counts.Length; i++)
        {
            var sent = sentPerStream is not null && i < sentPerStream.Count ? sentPerStream[i] : 0;
            lost += counts[i].LostAgainst(sent);
            expected += Math.Max(sent, counts[i].Highest);
        }

        var totals = new ReceiveTotals(counts.Sum(c => c.Datagrams), counts.Sum(c => c.Bytes), lost, expected, counts.Sum(c => c.OutOfOrder),
            counts.Sum(c => c.Duplicates), counts.Sum(c => c.Malformed), counts.Length == 0 ? 0 : counts.Average(c => c.JitterNanoseconds) / 1000.0);
        return TrafficReports.Receiver(totals, seconds, cpu, backend);
    }

    /// <summary>The receiver's results for iperf3: per stream bytes, jitter, lost (errors) and the datagrams known sent (packets).</summary>
    public static Iperf3Results ReceiverResults(IReadOnlyList<Iperf3StreamCounter> streams, IReadOnlyList<long>? sentPerStream, double seconds, TimeSpan cpu) =>
        new(CpuClock.Percent(cpu, TimeSpan.FromSeconds(seconds)), streams.Select((r, i) =>
        {
            var c = r.Counts;
            var sent = sentPerStream is not null && i < sentPerStream.Count ? sentPerStream[i] : 0;
            return new Iperf3StreamResult(r.Id, c.Bytes, c.JitterNanoseconds / 1e9, c.LostAgainst(sent), Math.Max(sent, c.Highest), c.OutOfOrder, seconds);
        }).ToArray());

    /// <summary>The sender's results for iperf3: per stream bytes and datagrams sent.</summary>
    public static Iperf3Results SenderResults(TrafficSender sender, int length, double seconds, TimeSpan cpu) =>
        new(CpuClock.Percent(cpu, TimeSpan.FromSeconds(seconds)), sender.SentPerFlow.Select((sent, i) =>
            new Iperf3StreamResult(Iperf3Datagram.StreamId(i), sent * length, 0, 0, sent, 0, seconds)).ToArray());

    /// <summary>The sending peer's side from its results: its packets are the datagrams it sent.</summary>
    public static SideReport PeerSender(Iperf3Results peer, double seconds)
    {
        var packets = peer.Streams.Sum(s => s.Packets);
        var bytes = peer.Streams.Sum(s => s.Bytes);
        seconds = Math.Max(seconds, 1e-6);
        return new SideReport("sender", seconds, packets, bytes, bytes * 8 / seconds, packets / seconds, CpuPercent: peer.CpuTotalPercent);
    }

    /// <summary>
    /// The receiving peer's side from its results: a stream received its packets (the highest counter it saw)
    /// less its errors. Lost counts against what we sent on the stream, as in Salvo's own tests: iperf3 3.12
    /// stops reading at TEST_END (iperf_server_api.c handles the control socket before the streams), so
    /// datagrams still queued then, and a lost tail, never show in its errors.
    /// </summary>
    public static SideReport PeerReceiver(Iperf3Results peer, IReadOnlyList<long> sentPerStream, double seconds)
    {
        long received = 0, lost = 0, sent = 0;
        for (var i = 0; i < sentPerStream.Count; i++)
        {
            var stream = peer.Streams.FirstOrDefault(s => s.Id == Iperf3Datagram.StreamId(i));
            var streamReceived = stream is null ? 0 : Math.Max(0, stream.Packets - stream.Errors);
            received += streamReceived;
            lost += Math.Max(stream?.Errors ?? 0, sentPerStream[i] - streamReceived);
            sent += Math.Max(sentPerStream[i], stream?.Packets ?? 0);
        }

        var bytes = peer.Streams.Sum(s => s.Bytes);
        seconds = Math.Max(seconds, 1e-6);
        return new SideReport("receiver", seconds, received, bytes, bytes * 8 / seconds, received / seconds, lost, sent == 0 ? 0 : 100.0 * lost / sent,
            peer.Streams.Sum(s => s.OutOfOrder), JitterMicroseconds: peer.Streams.Count == 0 ? 0 : peer.Streams.Average(s => s.JitterSeconds) * 1e6,
            CpuPercent: peer.CpuTotalPercent);
    }

    /// <summary>The peer's per-stream packets in our stream order (matched by iperf3's stream id).</summary>
    public static long[] MatchStreams(Iperf3Results peer, int streams) =>
        Enumerable.Range(0, streams).Select(i => peer.Streams.FirstOrDefault(s => s.Id == Iperf3Datagram.StreamId(i))?.Packets ?? 0).ToArray();
}
