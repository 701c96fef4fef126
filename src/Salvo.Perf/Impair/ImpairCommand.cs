using System.CommandLine;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Reporting;

namespace Salvo.Perf.Impair;

/// <summary><c>salvo impair</c>: a UDP relay that drops, duplicates, reorders and delays on purpose, and says exactly what it did.</summary>
internal static class ImpairCommand
{
    public static Command Create(CliConsole console)
    {
        var listen = new Option<string>("--listen") { Description = "ADDRESS:PORT clients send to (bound exactly there; [::]:PORT takes IPv4 and IPv6). Defaults to 127.0.0.1:47020.", HelpName = "ADDRESS:PORT", DefaultValueFactory = _ => "127.0.0.1:47020" };
        var forward = new Option<string>("--forward") { Description = "ADDRESS:PORT of the server datagrams are relayed to. Defaults to 127.0.0.1:47010.", HelpName = "ADDRESS:PORT", DefaultValueFactory = _ => "127.0.0.1:47010" };
        var drop = Probability("--drop", "Chance of dropping each datagram, 0 to 1.");
        var duplicate = Probability("--duplicate", "Chance of sending a datagram twice, 0 to 1.");
        var reorder = Probability("--reorder", "Chance of holding a datagram back so later ones overtake it, 0 to 1.");
        var gap = CommonOptions.Int("--reorder-gap", null, "COUNT", 3, 1, 1000, "Later datagrams that overtake a held one before it is released.");
        var hold = CommonOptions.Int("--reorder-hold-ms", null, "MS", 50, 0, 10_000, "Longest a held datagram waits when fewer later ones come, in ms.");
        var delay = new Option<string>("--delay-ms") { Description = "Added delay in ms, one value or MIN..MAX (uniform); order is kept. Defaults to 0.", HelpName = "MS|MIN..MAX", DefaultValueFactory = _ => "0" };
        var seed = new Option<ulong>("--seed") { Description = $"Seed of the impairments, 0 to {ulong.MaxValue.ToString("N0", CultureInfo.InvariantCulture)}: the same seed and traffic give the same decisions. Defaults to 1.", HelpName = "SEED", DefaultValueFactory = _ => 1 };
        var time = CommonOptions.Seconds("--time", "-t", 10, "Seconds to relay.");
        var sessions = CommonOptions.Int("--max-sessions", null, "COUNT", 64, 1, 4096, "Client addresses tracked at once (one upstream socket each).");
        var tcp = new Option<bool>("--tcp")
        {
            Description = "Also pass TCP connections on the listen address through to the forward address, untouched (salvo client's control " +
                "connection; use the same port number on both sides, e.g. --listen 127.0.0.2:47010 --forward 127.0.0.1:47010). Defaults to off.",
        };
        var command = new Command("impair",
            "Relays UDP between --listen and --forward in both directions (replies go back to each client's address), " +
            "dropping, duplicating, reordering and delaying datagrams from a seeded generator, and reports per direction " +
            "exactly what it did. Stops after -t seconds.")
        {
            listen, forward, drop, duplicate, reorder, gap, hold, delay, seed, time, sessions, tcp,
        };
        command.SetAction((parse, cancellationToken) =>
        {
            var (delayMin, delayMax) = ParseDelay(parse.GetValue(delay)!);
            var options = new ImpairOptions
            {
                Listen = ParseEndPoint(parse.GetValue(listen)!, "--listen"),
                Forward = ParseEndPoint(parse.GetValue(forward)!, "--forward"),
                Drop = parse.GetValue(drop),
                Duplicate = parse.GetValue(duplicate),
                Reorder = parse.GetValue(reorder),
                ReorderGap = parse.GetValue(gap),
                ReorderHold = TimeSpan.FromMilliseconds(parse.GetValue(hold)),
                DelayMin = delayMin,
                DelayMax = delayMax,
                Seed = parse.GetValue(seed),
                MaxSessions = parse.GetValue(sessions),
            };
            return RunAsync(console, options, parse.GetValue(time), parse.GetValue(tcp), cancellationToken);
        });
        return command;
    }

    public static async Task<int> RunAsync(CliConsole console, ImpairOptions options, double seconds, bool passTcp, CancellationToken cancellationToken)
    {
        if (options.GetErrors() is { Count: > 0 } errors)
        {
            throw new CliException(string.Join(" ", errors));
        }

        var (relay, tcp) = Open(options, passTcp);
        using (relay)
        {
            await using var tcpScope = tcp;
            tcp?.Start();
            relay.Start();
            console.Line($"salvo impair relaying {relay.ListenEndPoint} -> {options.Forward} for {seconds.ToString(CultureInfo.InvariantCulture)} s " +
                $"(drop {options.Drop:P2}, duplicate {options.Duplicate:P2}, reorder {options.Reorder:P2} gap {options.ReorderGap} hold {options.ReorderHold.TotalMilliseconds} ms, " +
                $"delay {options.DelayMin.TotalMilliseconds}..{options.DelayMax.TotalMilliseconds} ms, seed {options.Seed})");
            if (console.Format != OutputFormat.Text)
            {
                console.Note($"salvo impair: listening on {relay.ListenEndPoint}");
            }

            var start = System.Diagnostics.Stopwatch.StartNew();
            try
            {
                await Task.Delay(TimeSpan.FromSeconds(seconds), cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // Ctrl+C ends the run early; the report still comes.
            }

            relay.Stop();
            if (tcp is not null)
            {
                console.Line($"{tcp.Connections} TCP connection(s) passed through untouched.");
            }

            var report = relay.Report();
            var document = new ImpairCommandReport("impair", EnvironmentInfo.Capture(), new ImpairSettings(
                relay.ListenEndPoint.ToString(), options.Forward.ToString(), options.Drop, options.Duplicate, options.Reorder, options.ReorderGap,
                options.ReorderHold.TotalMilliseconds, options.DelayMin.TotalMilliseconds, options.DelayMax.TotalMilliseconds, options.Seed, seconds),
                start.Elapsed.TotalSeconds, report.ClientToServer, report.ServerToClient, report.Sessions, report.SessionsRefused, report.ForeignReplies);
            console.Document(document, LabJson.Indented.ImpairCommandReport, LabJson.Compact.ImpairCommandReport);
            Print(console, document);
            return 0;
        }
    }

    /// <summary>
    /// Binds the relay and, with --tcp, the pass-through on the same port number. With port 0 the UDP socket picks
    /// the number and that TCP port can already be taken (by any connection's local end), so it tries another.
    /// </summary>
    private static (ImpairRelay Relay, TcpPassThrough? Tcp) Open(ImpairOptions options, bool passTcp)
    {
        for (var attempt = 1; ; attempt++)
        {
            ImpairRelay relay;
            try
            {
                relay = new ImpairRelay(options);
            }
            catch (SocketException e) when (e.SocketErrorCode is SocketError.AddressAlreadyInUse or SocketError.AddressNotAvailable)
            {
                throw new CliException($"--listen: cannot bind {options.Listen}: {e.Message}", CliException.FailureExitCode);
            }

            try
            {
                return (relay, passTcp ? new TcpPassThrough(relay.ListenEndPoint, options.Forward) : null);
            }
            catch (SocketException e) when (options.Listen.Port == 0 && attempt < 10 && e.SocketErrorCode == SocketError.AddressAlreadyInUse)
            {
                relay.Dispose();
            }
            catch (SocketException e)
            {
                relay.Dispose();
                throw new CliException($"--tcp: cannot listen on {relay.ListenEndPoint}: {e.Message}", CliException.FailureExitCode);
            }
        }
    }

    /// <summary>Parses "5" or "0..5" (milliseconds, fractions allowed).</summary>
    public static (TimeSpan Min, TimeSpan Max) ParseDelay(string text)
    {
        var parts = text.Split("..", StringSplitOptions.TrimEntries);
        if (parts.Length is < 1 or > 2
            || !double.TryParse(parts[0], NumberStyles.Float, CultureInfo.InvariantCulture, out var min)
            || !double.TryParse(parts[^1], NumberStyles.Float, CultureInfo.InvariantCulture, out var max)
            || double.IsNaN(min) || double.IsNaN(max) || min < 0 || max < min || max > 10_000)
        {
            throw new CliException($"--delay-ms: '{text}' is not a delay in ms or a range MIN..MAX within 0..10000 (for example 0..5).");
        }

        return (TimeSpan.FromMilliseconds(min), TimeSpan.FromMilliseconds(max));
    }

    /// <summary>Parses ADDRESS:PORT ([v6]:port); port 0 is allowed for --listen only (the relay prints the one it got).</summary>
    public static IPEndPoint ParseEndPoint(string text, string option)
    {
        if (text.EndsWith(":0", StringComparison.Ordinal) && option == "--listen")
        {
            return new IPEndPoint(CommonOptions.ParseAddress(text[..^2].Trim('[', ']'), option), 0);
        }

        var (host, port) = ValueParsers.ParseHostPort(text, option);
        return new IPEndPoint(CommonOptions.ParseAddress(host, option), port);
    }

    private static Option<double> Probability(string name, string description)
    {
        var option = new Option<double>(name) { Description = $"{description} Defaults to 0.", HelpName = "P" };
        option.Validators.Add(result =>
        {
            if (CommonOptions.TryGetValue(result, out double value) && (double.IsNaN(value) || value < 0 || value > 1))
            {
                result.AddError($"{name}: {value.ToString(CultureInfo.InvariantCulture)} is not a probability from 0 to 1.");
            }
        });
        return option;
    }

    private static void Print(CliConsole console, ImpairCommandReport report)
    {
        var table = new TextTable("direction", "received", "forwarded", "dropped", "duplicated", "held", "reordered", "delayed", "send errors", "unsent");
        foreach (var d in new[] { report.ClientToServer, report.ServerToClient })
        {
            table.Add(d.Direction, N(d.Received), N(d.Forwarded), N(d.Dropped), N(d.Duplicated), N(d.Held), N(d.Reordered), N(d.Delayed), N(d.SendErrors), N(d.Pending));
        }

        table.Write(console);
        console.Line($"{report.Sessions} client address(es); {report.SessionsRefused} datagram(s) refused at the session limit; {report.ForeignReplies} datagram(s) from other than the server ignored.");
    }

    private static string N(long value) => value.ToString("N0", CultureInfo.InvariantCulture);
}

/// <summary>The <c>salvo impair --json</c> document.</summary>
internal sealed record ImpairCommandReport(string Command, EnvironmentInfo Environment, ImpairSettings Settings, double Seconds,
    ImpairDirectionReport ClientToServer, ImpairDirectionReport ServerToClient, long Sessions, long SessionsRefused, long ForeignReplies);

/// <summary>The relay's settings as run.</summary>
internal sealed record ImpairSettings(string Listen, string Forward, double Drop, double Duplicate, double Reorder, int ReorderGap,
    double ReorderHoldMs, double DelayMinMs, double DelayMaxMs, ulong Seed, double DurationSeconds);
