using System.Text.Json;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>One stream's line of iperf3's results JSON.</summary>
/// <param name="Id">iperf3's stream id (see <see cref="Iperf3Datagram.StreamId"/>).</param>
/// <param name="Bytes">Payload bytes this side sent or received.</param>
/// <param name="JitterSeconds">The receiver's RFC 3550 jitter in seconds (0 from a sender).</param>
/// <param name="Errors">The receiver's lost datagrams (0 from a sender).</param>
/// <param name="Packets">Datagrams sent, or, from a receiver, the datagrams it knows were sent (highest counter).</param>
/// <param name="OutOfOrder">Arrived after a later one (a receiver's count; iperf3 3.12 neither sends nor reads it).</param>
/// <param name="EndSeconds">How long the stream ran.</param>
internal sealed record Iperf3StreamResult(int Id, long Bytes, double JitterSeconds, long Errors, long Packets, long OutOfOrder, double EndSeconds);

/// <summary>
/// The results each side sends after <see cref="Iperf3State.ExchangeResults"/> (client first), as iperf3
/// 3.12 writes them: <c>{"cpu_util_total":3.07,"cpu_util_user":0.85,"cpu_util_system":2.21,
/// "sender_has_retransmits":0,"streams":[{"id":1,"bytes":125000,"retransmits":-1,"jitter":0,"errors":0,
/// "packets":625,"start_time":0,"end_time":1.0}]}</c>. iperf3 writes retransmits -1 as 18446744073709551615.
/// </summary>
/// <param name="CpuTotalPercent">Process CPU over the test, percent of one core.</param>
/// <param name="Streams">One entry per stream.</param>
internal sealed record Iperf3Results(double CpuTotalPercent, IReadOnlyList<Iperf3StreamResult> Streams)
{
    /// <summary>Parses results JSON; throws <see cref="InvalidDataException"/> naming what is wrong.</summary>
    public static Iperf3Results Parse(ReadOnlySpan<byte> json)
    {
        try
        {
            using var document = JsonDocument.Parse(json.ToArray());
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty("streams", out var streams) || streams.ValueKind != JsonValueKind.Array)
            {
                throw new InvalidDataException("the results JSON has no streams array");
            }

            var list = new List<Iperf3StreamResult>();
            foreach (var s in streams.EnumerateArray())
            {
                list.Add(new Iperf3StreamResult(
                    (int)Integer(s, "id"), Integer(s, "bytes"), Real(s, "jitter"), Integer(s, "errors"), Integer(s, "packets"),
                    s.TryGetProperty("out_of_order", out _) ? Integer(s, "out_of_order") : 0, Real(s, "end_time")));
            }

            return new Iperf3Results(root.TryGetProperty("cpu_util_total", out var cpu) && cpu.ValueKind == JsonValueKind.Number ? cpu.GetDouble() : 0, list);
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"the results are not valid JSON: {e.Message}", e);
        }
    }

    /// <summary>The JSON for these results. Retransmits are -1: UDP has none (iperf3 prints them for TCP only).</summary>
    public byte[] ToJson()
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            writer.WriteNumber("cpu_util_total", CpuTotalPercent);
            writer.WriteNumber("cpu_util_user", 0);
            writer.WriteNumber("cpu_util_system", 0);
            writer.WriteNumber("sender_has_retransmits", -1);
            writer.WriteStartArray("streams");
            foreach (var s in Streams)
            {
                writer.WriteStartObject();
                writer.WriteNumber("id", s.Id);
                writer.WriteNumber("bytes", s.Bytes);
                writer.WriteNumber("retransmits", -1);
                writer.WriteNumber("jitter", s.JitterSeconds);
                writer.WriteNumber("errors", s.Errors);
                writer.WriteNumber("packets", s.Packets);
                writer.WriteNumber("out_of_order", s.OutOfOrder);
                writer.WriteNumber("start_time", 0);
                writer.WriteNumber("end_time", s.EndSeconds);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        return buffer.ToArray();
    }

    private static long Integer(JsonElement stream, string key)
    {
        if (!stream.TryGetProperty(key, out var value) || value.ValueKind != JsonValueKind.Number)
        {
            throw new InvalidDataException($"a results stream has no number '{key}'");
        }

        return value.TryGetInt64(out var n) && n >= 0 ? n : throw new InvalidDataException($"a results stream has '{key}' {value.GetRawText()}, not a count");
    }

    private static double Real(JsonElement stream, string key) =>
        stream.TryGetProperty(key, out var value) && value.ValueKind == JsonValueKind.Number ? value.GetDouble() : 0;
}
