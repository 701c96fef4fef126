using System.CommandLine;
using System.Net.Sockets;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Connections;

/// <summary><c>salvo connections</c>: many framed TCP connections, their memory, and the echo rate through them.</summary>
internal static class ConnectionsCommand
{
    public static Command Create(CliConsole console)
    {
        var count = CommonOptions.Int("--count", "-n", "COUNT", 10_000, 1, 1_000_000, "Connections to open.");
        var active = CommonOptions.Int("--active", null, "COUNT", 10_000, 0, 1_000_000, "How many of them send (at most --count).");
        var rate = CommonOptions.Double("--rate", "-r", "PER_SECOND", 100_000, 0, 10_000_000, "messages/s",
            "Messages per second in total from the active connections; 0 only opens and measures idle connections.");
        var duration = CommonOptions.Seconds("--time", "-t", 10, "Seconds of traffic.");
        var minSize = CommonOptions.Int("--min-size", null, "BYTES", 16, 8, 65_536, "Smallest message in bytes (8 carry the send time).");
        var maxSize = CommonOptions.Int("--max-size", null, "BYTES", 512, 8, 65_536, "Largest message in bytes.");
        var server = CommonOptions.Choice("--server",
            "The echo server measured: salvo (StreamServer: pipelines, zero-byte reads, pooled pinned blocks) or plain (the usual .NET loop: " +
            "a task and a 4 KiB byte[] per connection, awaiting ReceiveAsync into it), the baseline to compare with.",
            ServerNames.Salvo, ServerNames.Plain);
        var batch = CommonOptions.Int("--batch", null, "COUNT", 1, 1, 64, "Messages written to a connection together, in one send; --rate still counts messages.");
        var settle = CommonOptions.Seconds("--settle", null, 0,
            "After the traffic, seconds to wait for echoes still in flight, sending nothing new: they count as echoed (and the rest as " +
            "unanswered) but not toward messages/s. 0 stops at once, leaving what is in flight unanswered.", allowZero: true);
        var inlineCompletions = new Option<bool>("--inline-completions")
        {
            Description = "Run the servers' socket completions on the runtime's epoll threads (" + ShardProcess.InlineCompletionsVariable +
                          "=1) instead of queueing each to the thread pool: no hop per message, and no queue that grows large " +
                          "arrays under bursts. Only for handlers that never block. Defaults to off.",
        };
        var framing = CommonOptions.Choice("--framing", "length (4-byte big-endian length prefix) or stx (STX...ETX with escapes).", "length", "stx");
        var client = CommonOptions.Choice("--client",
            "The load generator: epoll (plain sockets on one epoll loop per core, Linux x86-64/arm64; a few us of CPU per message, " +
            "so the servers are what is measured) or salvo (the library's StreamClient, which measures the client side too).",
            LoadClientNames.Choices);
        var bind = CommonOptions.LoopbackBind();

        var command = new Command("connections",
            "Opens --count framed TCP connections from client processes (one 127.0.0.x source address each; with -B ::1 all " +
            "from ::1) to echo server processes sharing one port on 127.0.0.1 or ::1 (SO_REUSEPORT), at most 15,000 connections per process; " +
            "measures the servers' memory with every connection idle (managed and resident bytes per connection, heap " +
            "fragmentation, pinned pool bytes, buffers held), then lets --active connections send randomly sized messages " +
            "to random connections at --rate in total for --time seconds and reports messages/s and round-trip latency.")
        {
            count, active, rate, duration, minSize, maxSize, batch, settle, framing, server, client, inlineCompletions, bind,
            ShardCommands.Server(),
            ShardCommands.Client(),
        };
        command.SetAction((parse, cancellationToken) =>
        {
            var n = parse.GetValue(count);
            var address = CommonOptions.ParseLoopbackAddress(parse.GetValue(bind)!);
            if (address.AddressFamily == AddressFamily.InterNetworkV6 && n > EphemeralPorts.Count())
            {
                // IPv6 has one loopback address, so every connection comes from ::1 to the one server port and
                // needs its own local port from net.ipv4.ip_local_port_range (which IPv6 uses too).
                throw new CliException($"-n/--count: {n:N0} connections over ::1 need as many local ports; " +
                    $"net.ipv4.ip_local_port_range has {EphemeralPorts.Count():N0}. Use -B 127.0.0.1 (one source address per 15,000).");
            }

            var min = parse.GetValue(minSize);
            var max = parse.GetValue(maxSize);
            if (min > max)
            {
                throw new CliException($"--min-size {min} is larger than --max-size {max}.");
            }

            var clientName = parse.GetValue(client)!;
            if (LoadClientNames.Parse(clientName) == LoadClientKind.Epoll && !EpollLoadClient.IsSupported)
            {
                throw new CliException("--client epoll needs Linux on x86-64 or arm64; use --client salvo here.");
            }

            var settings = new ConnectionsSettings(
                n,
                Math.Min(n, parse.GetValue(active)),
                parse.GetValue(rate),
                parse.GetValue(duration),
                min,
                max,
                parse.GetValue(framing)!,
                address.AddressFamily == AddressFamily.InterNetworkV6 ? 1 : Math.Max(1, (n + ConnectionsRunner.MaxConnectionsPerProcess - 1) / ConnectionsRunner.MaxConnectionsPerProcess),
                parse.GetValue(inlineCompletions),
                clientName,
                parse.GetValue(batch),
                parse.GetValue(server)!,
                parse.GetValue(settle),
                address.ToString());
            var result = ConnectionsRunner.Run(settings, line => console.Note($"salvo connections: {line}"), cancellationToken);
            Print(console, new ConnectionsReport("connections", EnvironmentInfo.Capture(), settings, result));
            return Task.FromResult(result.ConnectFailures == 0 ? 0 : CliException.FailureExitCode);
        });
        return command;
    }

    /// <summary>Prints the document (JSON) or the settings line, the environment and the table (text).</summary>
    internal static void Print(CliConsole console, ConnectionsReport report)
    {
        console.Document(report, ConnectionsJson.Default.ConnectionsReport, ConnectionsJson.Default.ConnectionsReport);
        var s = report.Settings;
        var r = report.Result;
        console.Line($"salvo connections: {s.Server} server, {s.Count:N0} connections ({s.Active:N0} active), {s.Framing} framing, " +
                     $"{s.MinMessageBytes}-{s.MaxMessageBytes} B messages{(s.Batch > 1 ? $" {s.Batch} per send" : string.Empty)}, {s.RatePerSecond:N0}/s for {s.DurationSeconds} s, {s.SourceAddresses} source address(es)" +
                     (s.InlineCompletions ? ", servers with inline completions" : string.Empty) + $", {s.Client} client");
        console.Line(report.Environment.Describe());
        var table = new TextTable("measure", "value");
        table.Add("connected (failed)", $"{Format.Count(r.Connected)} ({Format.Count(r.ConnectFailures)}) in {Format.Fixed(r.ConnectSeconds, 1)} s");
        table.Add("server processes; connections they hold", $"{r.ServerProcesses}; {Format.Count(r.ServerConnections)}");
        table.Add("server managed bytes per idle connection", Format.Count(r.ManagedBytesPerIdleConnection));
        table.Add("server resident bytes per idle connection", Format.Count(r.WorkingSetBytesPerIdleConnection));
        table.Add("heap fragmentation idle / after traffic", $"{Format.Percent(r.Idle.FragmentationPercent)} / {Format.Percent(r.AfterTraffic.FragmentationPercent)}");
        table.Add("  of it in the large object heap after traffic", $"{Format.Count(LargeObjectHeap(r.AfterTraffic) / 1024)} KiB of {Format.Count(r.AfterTraffic.FragmentedBytes / 1024)} KiB");
        table.Add("managed heap idle / after traffic", $"{Format.Count(r.Idle.ManagedBytes / 1024 / 1024)} MiB / {Format.Count(r.AfterTraffic.ManagedBytes / 1024 / 1024)} MiB");
        table.Add("pinned pool bytes; blocks held when idle", $"{Format.Count(r.PinnedBytes / 1024)} KiB; {Format.Count(r.RentedBlocksWhenIdle)}");
        table.Add("messages/s asked / echoed (share of asked)", report.AchievedPercentOfRate is { } share
            ? $"{Format.Count(s.RatePerSecond)} / {Format.Count(r.MessagesPerSecond)} ({Format.Fixed(share, 1)} %)"
            : $"none asked / {Format.Count(r.MessagesPerSecond)}");
        table.Add($"messages sent / echoed / unanswered{(s.SettleSeconds > 0 ? $" after up to {s.SettleSeconds} s" : " (in flight at the end)")}",
            $"{Format.Count(r.MessagesSent)} / {Format.Count(r.MessagesEchoed)} / {Format.Count(r.MessagesUnanswered)}");
        if (r.Latency is { } l)
        {
            table.Add("round trip p50 / p99 / max us (worst client)", $"{Format.Count(l.P50Microseconds)} / {Format.Count(l.P99Microseconds)} / {Format.Count(l.MaxMicroseconds)}");
        }

        table.Add("CPU us per echoed message: servers / clients", $"{Format.Fixed(r.ServerCpuMicrosecondsPerMessage, 1)} / {Format.Fixed(r.ClientCpuMicrosecondsPerMessage, 1)}");
        table.Add("sends refused (queue full)", Format.Count(r.SendsRefused));
        table.Add("client connections closed during traffic (echo did not decode)", $"{Format.Count(r.ClientConnectionsClosed)} ({Format.Count(r.MalformedEchoes)})");
        table.Add("server closes by reason", r.ServerClosedByReason.Count == 0 ? "none" : string.Join(", ", r.ServerClosedByReason.Select(p => $"{p.Key} {p.Value}")));
        table.Write(console);
        if (report.RateNotReached)
        {
            var sentPerSecond = r.MessagesSent / s.DurationSeconds;
            var who = sentPerSecond < ConnectionsReport.ReachedPercent / 100 * s.RatePerSecond
                ? $"the clients sent only {Format.Count(sentPerSecond)}/s"
                : $"the clients sent {Format.Count(sentPerSecond)}/s, the servers echoed fewer";
            console.Line($"warning: echoed {Format.Count(r.MessagesPerSecond)} messages/s, {Format.Fixed(report.AchievedPercentOfRate!.Value, 1)} % of the " +
                $"{Format.Count(s.RatePerSecond)} asked ({who}): the figures above describe that lighter load, not the one asked for.");
        }
    }

    // GCMemoryInfo.GenerationInfo: gen0, gen1, gen2, then the large object heap (not compacted by default).
    private static long LargeObjectHeap(MemorySnapshot snapshot) =>
        snapshot.FragmentedBytesByGeneration is { Length: > 3 } generations ? generations[3] : 0;
}
