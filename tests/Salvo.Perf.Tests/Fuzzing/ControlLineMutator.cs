using System.Text;
using System.Text.Json;
using Salvo.Fuzzing;

namespace Salvo.Perf.Tests.Fuzzing;

/// <summary>
/// Mutates a control line at the JSON level (a field set to an edge value of another type or range, dropped,
/// duplicated, renamed; the side report likewise), and half the time at the byte level on top, so that both the
/// JSON reader and the checks behind it are reached: byte flips alone rarely leave valid JSON.
/// </summary>
internal sealed class ControlLineMutator(Random random, Mutator bytes)
{
    private static readonly string[] Keys =
    [
        "type", "version", "lengthBytes", "bitsPerSecond", "durationSeconds", "parallel", "reverse", "clientPorts", "udpPort", "sent", "side", "reason",
    ];

    private static readonly string[] SideKeys =
    [
        "role", "seconds", "datagrams", "bytes", "bitsPerSecond", "datagramsPerSecond", "lost", "lossPercent", "outOfOrder", "duplicates",
        "malformed", "jitterMicroseconds", "cpuPercent",
    ];

    private static readonly string[] Values =
    [
        "null", "true", "false", "0", "-0", "1", "-1", "23", "24", "65507", "65508", "128", "129", "65535", "65536", "0.5", "-0.0", "1e-320",
        "86400", "86400.000001", "2147483647", "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808", "1e308", "1e400",
        "\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "\"\"", "\"hello\"", "\"done\"", "\"result\"", "\"sender\"", "\"receiver\"", "\"\\u0000\"",
        "\"\\ud800\"", "[]", "{}", "[1]", "[0,65536]", "[1,2,3]", "[-1]", "[9223372036854775807,9223372036854775807]", "[null]", "[\"1\"]",
        $"\"{new string('x', 3000)}\"", $"[{string.Join(',', Enumerable.Repeat(1, 1000))}]", $"{new string('[', 70)}{new string(']', 70)}",
    ];

    public byte[] Mutate(byte[] line, IReadOnlyList<byte[]> corpus)
    {
        var fields = TryFields(line);
        var mutated = fields is null ? line : Render(MutateFields(fields, Keys, depth: 0));
        return fields is null || random.Next(2) == 0 ? bytes.Mutate(mutated, corpus) : mutated;
    }

    private List<(string Key, string Value)> MutateFields(List<(string Key, string Value)> fields, string[] keys, int depth)
    {
        for (var count = 1 + random.Next(3); count > 0; count--)
        {
            var key = keys[random.Next(keys.Length)];
            var at = fields.FindIndex(f => f.Key == key);
            switch (random.Next(6))
            {
                case 0 when at >= 0:
                    fields.RemoveAt(at);
                    break;
                case 1 when at >= 0:
                    fields.Add(fields[at]); // duplicate key: the last one wins
                    break;
                case 2 when at >= 0:
                    fields[at] = (char.ToUpperInvariant(key[0]) + key[1..], fields[at].Value);
                    break;
                case 3 when key == "side" && depth == 0:
                    var side = at >= 0 ? TryFields(Encoding.UTF8.GetBytes(fields[at].Value)) ?? [] : [];
                    Set(fields, key, Encoding.UTF8.GetString(Render(MutateFields(side, SideKeys, depth + 1))));
                    break;
                default:
                    Set(fields, key, Values[random.Next(Values.Length)]);
                    break;
            }
        }

        return fields;
    }

    private static void Set(List<(string Key, string Value)> fields, string key, string value)
    {
        var at = fields.FindIndex(f => f.Key == key);
        if (at >= 0)
        {
            fields[at] = (key, value);
        }
        else
        {
            fields.Add((key, value));
        }
    }

    private static List<(string Key, string Value)>? TryFields(byte[] json)
    {
        try
        {
            using var document = JsonDocument.Parse(json);
            return document.RootElement.ValueKind == JsonValueKind.Object
                ? [.. document.RootElement.EnumerateObject().Select(p => (p.Name, p.Value.GetRawText()))]
                : null;
        }
        catch (JsonException)
        {
            return null;
        }
    }

    private static byte[] Render(List<(string Key, string Value)> fields) =>
        Encoding.UTF8.GetBytes("{" + string.Join(',', fields.Select(f => $"{JsonSerializer.Serialize(f.Key)}:{f.Value}")) + "}");
}
