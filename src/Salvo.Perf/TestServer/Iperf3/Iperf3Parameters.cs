using System.Globalization;
using System.Text.Json;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// The test an iperf3 client asks for: the JSON object it sends after <see cref="Iperf3State.ParamExchange"/>,
/// for example <c>{"udp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":2,"reverse":true,"len":100,
/// "bandwidth":20000,"pacing_timer":1000,"udp_counters_64bit":1,"client_version":"3.12"}</c> (iperf3 3.12,
/// <c>-u -t 1 -P 2 -R -l 100 -b 20K --udp-counters-64bit</c>). <c>bandwidth</c> is per stream in bits/s.
/// </summary>
/// <param name="Seconds">-t.</param>
/// <param name="Parallel">-P.</param>
/// <param name="Reverse">-R: the server sends.</param>
/// <param name="Length">-l: bytes per datagram.</param>
/// <param name="BitsPerSecondPerStream">-b, per stream; 0 = unlimited.</param>
/// <param name="Counters64">--udp-counters-64bit.</param>
internal sealed record Iperf3Parameters(double Seconds, int Parallel, bool Reverse, int Length, long BitsPerSecondPerStream, bool Counters64)
{
    /// <summary>The most streams iperf3 itself allows (-P 128).</summary>
    public const int MaxParallel = 128;

    /// <summary>Keys that ask for something this implementation does not do when their value is set (not 0, false or empty).</summary>
    private static readonly (string Key, string Option)[] Unsupported =
    [
        ("tcp", "TCP tests (no -u)"), ("sctp", "SCTP tests (--sctp)"), ("bidirectional", "--bidir"),
        ("num", "-n/--bytes"), ("blockcount", "-k/--blockcount"), ("omit", "-O/--omit"), ("burst", "a burst in -b RATE/BURST"),
        ("authtoken", "--username (authentication)"), ("get_server_output", "--get-server-output"),
    ];

    /// <summary>
    /// Keys a test can run without: the streams' socket settings and placement, which this server leaves at its
    /// own (4 MiB buffers, default TOS, no pinning). They are named in the server's log, never dropped silently.
    /// </summary>
    private static readonly (string Key, string Option)[] Unapplied =
    [
        ("window", "-w/--window"), ("TOS", "-S/--tos"), ("flowlabel", "-L/--flowlabel"), ("server_affinity", "-A (server side)"),
        ("fqrate", "--fq-rate"), ("dont_fragment", "--dont-fragment"), ("MSS", "-M/--set-mss"), ("nodelay", "-N/--no-delay"),
        ("congestion", "-C/--congestion"),
    ];

    /// <summary>Options the client set that this server does not apply (see <see cref="Unapplied"/>).</summary>
    public IReadOnlyList<string> Ignored { get; init; } = [];

    /// <summary>
    /// Parses and checks the parameters JSON. Returns the parameters, or null with the iperf3 error code
    /// to send and a reason that names the unsupported option or bad value.
    /// </summary>
    public static Iperf3Parameters? Parse(ReadOnlySpan<byte> json, out Iperf3Error error, out string? reason)
    {
        error = Iperf3Error.NotImplemented;
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(json.ToArray());
        }
        catch (JsonException e)
        {
            reason = $"the parameters are not valid JSON: {e.Message}";
            return null;
        }

        using (document)
        {
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
            {
                reason = "the parameters are not a JSON object";
                return null;
            }

            if (!IsSet(root, "udp"))
            {
                error = Iperf3Error.ProtocolNotSupported;
                reason = $"{(IsSet(root, "sctp") ? "SCTP" : "TCP")} tests are not supported; salvo server runs iperf3 UDP tests (-u) with -t, -b, -l, -P, -R and --udp-counters-64bit";
                return null;
            }

            foreach (var (key, option) in Unsupported)
            {
                if (IsSet(root, key))
                {
                    reason = $"{option} is not supported; salvo server runs iperf3 UDP tests (-u) with -t, -b, -l, -P, -R and --udp-counters-64bit";
                    return null;
                }
            }

            var counters64 = IsSet(root, "udp_counters_64bit");
            var seconds = Number(root, "time", 10);
            var parallel = Number(root, "parallel", 1);
            var length = Number(root, "len", 1460);
            // iperf3 leaves "bandwidth" out when its rate is 0 (-b 0, unlimited); its 1 Mbit/s UDP default is sent as a number.
            var bandwidth = Number(root, "bandwidth", 0);
            reason = seconds is <= 0 or > 86_400 || double.IsNaN(seconds) ? $"time {Text(seconds)} is outside 0..86400 s"
                : parallel is < 1 or > MaxParallel || parallel != Math.Floor(parallel) ? $"parallel {Text(parallel)} is outside 1..{MaxParallel}"
                : length < Iperf3Datagram.HeaderSize(counters64) || length > Cli.ValueParsers.MaxUdpPayload || length != Math.Floor(length)
                    ? $"len {Text(length)} is outside {Iperf3Datagram.HeaderSize(counters64)}..{Cli.ValueParsers.MaxUdpPayload} bytes"
                : bandwidth is < 0 or > long.MaxValue / 2 || double.IsNaN(bandwidth) ? $"bandwidth {Text(bandwidth)} is negative or too large"
                : null;
            return reason is null
                ? new Iperf3Parameters(seconds, (int)parallel, IsSet(root, "reverse"), (int)length, (long)bandwidth, counters64)
                {
                    Ignored = Unapplied.Where(u => IsSet(root, u.Key)).Select(u => u.Option).ToArray(),
                }
                : null;
        }
    }

    /// <summary>The JSON a client sends for these parameters.</summary>
    public byte[] ToJson()
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            writer.WriteBoolean("udp", true);
            writer.WriteNumber("omit", 0);
            writer.WriteNumber("time", Seconds);
            writer.WriteNumber("num", 0);
            writer.WriteNumber("blockcount", 0);
            writer.WriteNumber("parallel", Parallel);
            if (Reverse)
            {
                writer.WriteBoolean("reverse", true);
            }

            writer.WriteNumber("len", Length);
            writer.WriteNumber("bandwidth", BitsPerSecondPerStream);
            writer.WriteNumber("pacing_timer", 1000);
            if (Counters64)
            {
                writer.WriteNumber("udp_counters_64bit", 1);
            }

            writer.WriteEndObject();
        }

        return buffer.ToArray();
    }

    /// <summary>Whether a key is present with a value that switches something on (true, non-zero, non-empty).</summary>
    private static bool IsSet(JsonElement root, string key) => root.TryGetProperty(key, out var value) && value.ValueKind switch
    {
        JsonValueKind.True => true,
        JsonValueKind.Number => value.GetDouble() != 0,
        JsonValueKind.String => value.GetString()!.Length > 0,
        JsonValueKind.Object or JsonValueKind.Array => true,
        _ => false,
    };

    private static double Number(JsonElement root, string key, double absent) =>
        root.TryGetProperty(key, out var value) ? value.ValueKind == JsonValueKind.Number ? value.GetDouble() : double.NaN : absent;

    private static string Text(double value) => value.ToString(CultureInfo.InvariantCulture);
}
