using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary>
/// Turns a control line the JSON reader refused into a reason a client can act on, naming the field and the
/// value it holds: the reader's own message ("could not be converted to ControlMessage. Path: $.bitsPerSecond")
/// names a .NET type, and a client sent <c>bitsPerSecond 1e20</c>, not a type.
/// </summary>
internal static class ControlLineErrors
{
    /// <summary>The longest piece of the client's input quoted back to it.</summary>
    private const int MaxQuoted = 40;

    /// <summary>Why <paramref name="line"/> is not a control message, from the reader's <paramref name="error"/>.</summary>
    public static string Describe(JsonException error, ReadOnlySpan<byte> line)
    {
        var text = line.Trim(" \t\r"u8);
        if (text.IsEmpty || text[0] != (byte)'{')
        {
            return $"a control message is one JSON object per line ({{\"type\":...}}); got '{Quote(text)}'";
        }

        if (FieldOf(error.Path) is { } field)
        {
            return $"{field}: {ValueOf(line, field) ?? "the value"} is not {Expected(field)}";
        }

        return $"control message is not valid JSON: {FirstSentence(error.Message)}";
    }

    /// <summary>What a field must hold, in the words of the hello's own checks.</summary>
    public static string Expected(string field) => field switch
    {
        "version" => $"a whole number (this server speaks {ControlMessage.CurrentVersion})",
        "lengthBytes" => $"a whole number of bytes, {Protocol.PayloadHeader.Size}..{Cli.ValueParsers.MaxUdpPayload}",
        "bitsPerSecond" => $"a whole number of bits per second, 0 (unlimited) to {long.MaxValue}",
        "durationSeconds" => "a number of seconds, above 0 and at most 86400",
        "parallel" => $"a whole number of flows, 1..{ControlMessage.MaxParallel}",
        "reverse" => "true or false",
        "clientPorts" => "an array of port numbers, 1..65535",
        "udpPort" => "a port number, 1..65535",
        "sent" => "an array of whole numbers",
        "type" or "reason" => "a string",
        "side" => "an object",
        _ => "a value of the right type",
    };

    /// <summary>The top-level field a reader's path points into ("$.clientPorts[2]" is clientPorts), or null.</summary>
    private static string? FieldOf(string? path)
    {
        if (path is null || !path.StartsWith("$.", StringComparison.Ordinal) || path.Length == 2)
        {
            return null;
        }

        var end = path.AsSpan(2).IndexOfAny('.', '[');
        return end < 0 ? path[2..] : path.Substring(2, end);
    }

    /// <summary>The field's value as the client wrote it, shortened; null when the line does not parse as JSON at all.</summary>
    private static string? ValueOf(ReadOnlySpan<byte> line, string field)
    {
        try
        {
            using var document = JsonDocument.Parse(line.ToArray());
            // The raw bytes, not GetRawText: a value may hold bytes that are not UTF-8, which that would throw on.
            return document.RootElement.ValueKind == JsonValueKind.Object && document.RootElement.TryGetProperty(field, out var value)
                ? Quote(JsonMarshal.GetRawUtf8Value(value))
                : null;
        }
        catch (JsonException)
        {
            return null;
        }
    }

    private static string Quote(ReadOnlySpan<byte> bytes)
    {
        var text = Encoding.UTF8.GetString(bytes[..Math.Min(bytes.Length, MaxQuoted)]);
        var printable = new string(text.Select(c => char.IsControl(c) ? '?' : c).ToArray());
        return bytes.Length > MaxQuoted ? printable + "..." : printable;
    }

    private static string FirstSentence(string message)
    {
        var path = message.IndexOf(" Path:", StringComparison.Ordinal);
        var line = message.IndexOf(" LineNumber:", StringComparison.Ordinal);
        var end = new[] { path, line }.Where(i => i > 0).DefaultIfEmpty(message.Length).Min();
        return message[..end].TrimEnd(' ', '|');
    }
}
