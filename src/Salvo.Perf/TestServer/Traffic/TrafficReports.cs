using System.Diagnostics;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary>Interval lines and side summaries shared by server and client.</summary>
internal static class TrafficReports
{
    /// <summary>A sender's side after a test.</summary>
    public static SideReport Sender(TrafficSender sender, double seconds, TimeSpan cpu) => new(
        "sender", seconds, sender.Datagrams, sender.Bytes, sender.Bytes * 8 / seconds, sender.Datagrams / seconds,
        CpuPercent: CpuClock.Percent(cpu, TimeSpan.FromSeconds(seconds)), Backend: sender.Backend);

    /// <summary>A receiver's side after a test.</summary>
    public static SideReport Receiver(ReceiveTotals t, double seconds, TimeSpan cpu, DatagramBackend backend) => new(
        "receiver", seconds, t.Datagrams, t.Bytes, t.Bytes * 8 / seconds, t.Datagrams / seconds,
        t.Lost, t.LossPercent, t.OutOfOrder, t.Duplicates, t.Malformed, t.JitterMicroseconds,
        CpuClock.Percent(cpu, TimeSpan.FromSeconds(seconds)), backend, backend == DatagramBackend.AfXdp ? FrameDropReport.ByReason(t.FrameDrops) : null);

    /// <summary>
    /// Waits until the receiver has counted every datagram the sender reported, or nothing new arrived for
    /// 250 ms, or 3 s passed: the last datagrams may still sit in a socket buffer behind a busy CPU.
    /// </summary>
    public static async Task DrainAsync(IReceiveEngine engine, IReadOnlyList<long> sent, CancellationToken cancellationToken)
    {
        var expected = sent.Sum();
        var clock = Stopwatch.StartNew();
        var last = engine.Snapshot(sent).Datagrams;
        var lastChange = clock.Elapsed;
        while (last < expected && clock.Elapsed - lastChange < TimeSpan.FromMilliseconds(250) && clock.Elapsed < TimeSpan.FromSeconds(3))
        {
            await Task.Delay(10, cancellationToken).ConfigureAwait(false);
            var now = engine.Snapshot(sent).Datagrams;
            if (now != last)
            {
                last = now;
                lastChange = clock.Elapsed;
            }
        }
    }

    /// <summary>
    /// Prints an interval line every <paramref name="interval"/> seconds (0 = none) until <paramref name="until"/>
    /// completes; <paramref name="read"/> returns the running totals (datagrams, bytes, lost, jitter us).
    /// </summary>
    public static async Task IntervalsAsync(CliConsole console, string role, double interval, Func<(long Datagrams, long Bytes, long Lost, double JitterMicroseconds)> read, Task until)
    {
        if (interval <= 0)
        {
            await until.ConfigureAwait(false);
            return;
        }

        var clock = Stopwatch.StartNew();
        var previous = (Datagrams: 0L, Bytes: 0L, Lost: 0L, JitterMicroseconds: 0.0);
        var previousSeconds = 0.0;
        console.Line(role == "sender"
            ? "[ ID] Interval          Transfer       Bitrate         Datagrams"
            : "[ ID] Interval          Transfer       Bitrate         Jitter      Lost/Total");
        while (true)
        {
            var next = TimeSpan.FromSeconds(previousSeconds + interval) - clock.Elapsed;
            var finished = await Task.WhenAny(until, Task.Delay(next > TimeSpan.Zero ? next : TimeSpan.Zero)).ConfigureAwait(false) == until;
            var now = clock.Elapsed.TotalSeconds;
            var current = read();
            var seconds = Math.Max(1e-6, now - previousSeconds);
            var datagrams = current.Datagrams - previous.Datagrams;
            var bytes = current.Bytes - previous.Bytes;
            var lost = Math.Max(0, current.Lost - previous.Lost);
            if (!finished || datagrams > 0)
            {
                console.Event(new TrafficIntervalEvent("interval", role, previousSeconds, now, datagrams, bytes, bytes * 8 / seconds, lost, current.JitterMicroseconds),
                    PerfJson.Compact.TrafficIntervalEvent);
                var span = $"{previousSeconds,5:F2}-{now,5:F2} s";
                var transfer = $"{bytes / 1048576.0,8:F2} MBytes";
                console.Line(role == "sender"
                    ? $"[SUM] {span}  {transfer}  {ValueParsers.FormatBits(bytes * 8 / seconds),14}  {Format.Count(datagrams)}"
                    : $"[SUM] {span}  {transfer}  {ValueParsers.FormatBits(bytes * 8 / seconds),14}  {current.JitterMicroseconds / 1000,7:F3} ms  {Format.Count(lost)}/{Format.Count(datagrams + lost)}");
            }

            previous = current;
            previousSeconds = now;
            if (finished)
            {
                return;
            }
        }
    }

    /// <summary>The server's report of one test: the JSON document (--json, --json-stream) and the summary table.</summary>
    public static void ServerReport(CliConsole console, string client, bool reverse, SideReport local, SideReport? peer)
    {
        var cutShort = local.CutShort == true || peer?.CutShort == true;
        var report = new ServerTestReport("server", EnvironmentInfo.Capture(), client, reverse, local, peer, cutShort ? true : null);
        console.Record(report, PerfJson.Compact.ServerTestReport);
        PrintSummary(console, local, peer);
    }

    /// <summary>The server's report of a test its stop cut short: what this side counted; the client's side never came.</summary>
    /// <param name="console">Where to print.</param>
    /// <param name="client">The client's address.</param>
    /// <param name="reverse">Whether the server was sending.</param>
    /// <param name="local">The server's side so far.</param>
    /// <param name="kind">Which client, for the text: "iperf3 client " or empty.</param>
    public static void ServerCutShort(CliConsole console, string client, bool reverse, SideReport local, string kind = "")
    {
        console.Line($"Test with {kind}{client} {CutShortAfter(local.Seconds)}: the server is stopping; this side's counts so far:");
        ServerReport(console, client, reverse, local with { CutShort = true }, null);
    }

    /// <summary>How the text names a test a stop signal ended early: "cut short after 3.0 s".</summary>
    public static string CutShortAfter(double seconds) =>
        $"cut short after {seconds.ToString("F1", System.Globalization.CultureInfo.InvariantCulture)} s";

    /// <summary>The final summary: one line per side.</summary>
    public static void PrintSummary(CliConsole console, params SideReport?[] sides)
    {
        var table = new TextTable("side", "seconds", "datagrams", "MBytes", "bitrate", "datagrams/s", "jitter ms", "lost", "loss", "out of order", "duplicates", "malformed", "CPU");
        foreach (var s in sides.OfType<SideReport>())
        {
            var receiver = s.Role == "receiver";
            table.Add(s.Role, Format.Fixed(s.Seconds, 2), Format.Count(s.Datagrams), Format.Fixed(s.Bytes / 1048576.0, 2), ValueParsers.FormatBits(s.BitsPerSecond),
                Format.Count(s.DatagramsPerSecond), receiver ? Format.Fixed(s.JitterMicroseconds / 1000, 3) : "-", receiver ? Format.Count(s.Lost) : "-",
                receiver ? Format.Percent(s.LossPercent) : "-", receiver ? Format.Count(s.OutOfOrder) : "-", receiver ? Format.Count(s.Duplicates) : "-",
                receiver ? Format.Count(s.Malformed) : "-", Format.Percent(s.CpuPercent));
        }

        table.Write(console);
        foreach (var s in sides.OfType<SideReport>())
        {
            if (s.FrameDrops is { } drops)
            {
                console.Line($"{s.Role} frames dropped by the AF_XDP receive checks: {FrameDropReport.Describe(drops)}");
            }
        }
    }
}

/// <summary>A --json-stream interval event.</summary>
/// <param name="Event">"interval".</param>
/// <param name="Role">"sender" or "receiver".</param>
/// <param name="Start">Seconds since the test began.</param>
/// <param name="End">Seconds since the test began.</param>
/// <param name="Datagrams">Datagrams in the interval.</param>
/// <param name="Bytes">Payload bytes in the interval.</param>
/// <param name="BitsPerSecond">Payload bit rate in the interval.</param>
/// <param name="Lost">Datagrams found missing in the interval (receiver).</param>
/// <param name="JitterMicroseconds">Current jitter (receiver).</param>
internal sealed record TrafficIntervalEvent(string Event, string Role, double Start, double End, long Datagrams, long Bytes, double BitsPerSecond, long Lost, double JitterMicroseconds);

/// <summary>How a client test was set up.</summary>
/// <param name="Server">HOST:PORT.</param>
/// <param name="LengthBytes">Bytes per datagram.</param>
/// <param name="BitsPerSecond">Target rate, 0 = unlimited.</param>
/// <param name="DurationSeconds">Seconds of sending.</param>
/// <param name="Parallel">Flows.</param>
/// <param name="Reverse">Whether the server sent.</param>
/// <param name="Backend">The backend asked for with --backend for the client's sockets.</param>
internal sealed record ClientSettings(string Server, int LengthBytes, long BitsPerSecond, double DurationSeconds, int Parallel, bool Reverse, DatagramBackend Backend = DatagramBackend.Auto);

/// <summary>The JSON document of <c>salvo client --json</c>.</summary>
/// <param name="Command">"client".</param>
/// <param name="Environment">Where the client ran.</param>
/// <param name="Settings">How the test was set up.</param>
/// <param name="Sender">The sending side's counters.</param>
/// <param name="Receiver">The receiving side's counters.</param>
/// <param name="CutShort">True when a stop signal ended the test before -t ran out; absent otherwise.</param>
internal sealed record ClientReport(string Command, EnvironmentInfo Environment, ClientSettings Settings, SideReport? Sender, SideReport? Receiver, bool? CutShort = null);

/// <summary>The JSON document <c>salvo server --json</c> prints after each test.</summary>
/// <param name="Command">"server".</param>
/// <param name="Environment">Where the server ran.</param>
/// <param name="Client">The client's address.</param>
/// <param name="Reverse">Whether the server sent.</param>
/// <param name="Local">The server's side.</param>
/// <param name="Peer">The client's side, as it reported it.</param>
/// <param name="CutShort">True when a stop signal on either end ended the test before its -t ran out; absent otherwise.</param>
internal sealed record ServerTestReport(string Command, EnvironmentInfo Environment, string Client, bool Reverse, SideReport Local, SideReport? Peer, bool? CutShort = null);
