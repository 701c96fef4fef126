using System.Text.Json;

namespace Salvo.Perf.Tests.Iperf3;

/// <summary>
/// The end totals of one iperf3 --json document, from <c>end.sum_sent</c> and <c>end.sum_received</c>.
/// iperf3 3.12's client fills both (the peer's from the results exchange); its server fills only its own
/// side and leaves the other zero. A UDP receiver's per-stream <c>bytes</c> are 0, so only the sums are read.
/// </summary>
/// <param name="SentPackets">Datagrams the sender sent.</param>
/// <param name="ReceivedPackets">Datagrams the receiver knows were sent (what it calls total).</param>
/// <param name="ReceivedBytes">Bytes the receiver received.</param>
/// <param name="Lost">Datagrams the receiver counts as lost.</param>
/// <param name="Streams">Streams in the test.</param>
internal sealed record Iperf3Summary(long SentPackets, long ReceivedPackets, long ReceivedBytes, long Lost, int Streams)
{
    /// <summary>Parses the first JSON document in <paramref name="output"/> (iperf3 -s prints one per test).</summary>
    public static Iperf3Summary Parse(string output)
    {
        var reader = new Utf8JsonReader(System.Text.Encoding.UTF8.GetBytes(output));
        using var document = JsonDocument.ParseValue(ref reader);
        var root = document.RootElement;
        Assert.False(root.TryGetProperty("error", out var error), $"iperf3 reported an error: {error}");
        var end = root.GetProperty("end");
        var sent = end.GetProperty("sum_sent");
        var received = end.GetProperty("sum_received");
        return new Iperf3Summary(sent.GetProperty("packets").GetInt64(), received.GetProperty("packets").GetInt64(),
            received.GetProperty("bytes").GetInt64(), received.GetProperty("lost_packets").GetInt64(), end.GetProperty("streams").GetArrayLength());
    }
}
