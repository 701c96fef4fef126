using System.CommandLine;
using System.Net.Sockets;
using Salvo.Perf.Connections;
using Salvo.Perf.Doctor;
using Salvo.Perf.Loopback;
using Salvo.Perf.Rr;
using Salvo.Perf.Sweep;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.Cli;

/// <summary>The <c>salvo</c> command line: parses, runs one command, turns every failure into one line and an exit code.</summary>
internal static class SalvoCli
{
    /// <summary>Builds the command tree writing to <paramref name="console"/>.</summary>
    public static Command Build(CliConsole console)
    {
        // A named root rather than RootCommand, whose name is the assembly's (Salvo.Perf), not the tool's.
        var root = new Command("salvo",
            "salvo: measures UDP on this host. Throughput and loss of plain .NET sockets against Salvo's batched " +
            "paths (loopback), iperf3-style tests between two hosts (server/client; the server also answers stock iperf3 " +
            "and sockperf clients, and the client can test against a stock 'iperf3 -s'), request/response latency (rr), " +
            "size sweeps with an HTML report (sweep), many TCP connections (connections), an impairment relay (impair), " +
            "a mixed-load soak (soak), UDP-first transport with TCP fallback (transport), a WireGuard-compatible tunnel (tunnel), the kernel path beside AF_XDP and C on a veth pair (lab), and what limits UDP here (doctor).")
        {
            LoopbackCommand.Create(console),
            ServerCommand.Create(console),
            ClientCommand.Create(console),
            RrCommand.Create(console),
            SweepCommand.Create(console),
            DoctorCommand.Create(console),
            ConnectionsCommand.Create(console),
            Impair.ImpairCommand.Create(console),
            Soak.SoakCommand.Create(console),
            Transport.TransportCommand.Create(console),
            Tunnel.TunnelCommand.Create(console),
            Lab.LabCommand.Create(console),
            CompletionCommand.Create(console),
        };
        root.Options.Add(new VersionOption());
        root.Options.Add(CommonOptions.Json);
        root.Options.Add(CommonOptions.JsonStream);
        root.Options.Add(HelpText.Option());
        return root;
    }

    /// <summary>Runs <paramref name="args"/>; returns the exit code. Never throws for bad input.</summary>
    /// <param name="args">The command line.</param>
    /// <param name="console">Where the command writes.</param>
    /// <param name="cancellationToken">Cancelled to stop the run (a stop signal; in tests, standing for Ctrl+C).</param>
    /// <param name="stoppedBy">The signal that cancelled <paramref name="cancellationToken"/>, for the exit code; SIGINT when null or when it returns null.</param>
    public static async Task<int> RunAsync(string[] args, CliConsole console, CancellationToken cancellationToken = default, Func<StopSignal?>? stoppedBy = null)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(console);
        var root = Build(console);
        args = Tunnel.Userspace.WgQuickInvocation.Arguments(args, Environment.GetEnvironmentVariable(Tunnel.Userspace.WgQuickInvocation.Variable), root);
        var parse = root.Parse(args.Length == 0 ? ["--help"] : args);
        if (parse.Errors.Count > 0)
        {
            console.Error.WriteLine(ParseErrorText.Format(parse));
            return CliException.UsageExitCode;
        }

        try
        {
            CommonOptions.ApplyFormat(parse, console);
            var configuration = new InvocationConfiguration
            {
                Output = console.Out,
                Error = console.Error,
                EnableDefaultExceptionHandler = false,
            };
            return await parse.InvokeAsync(configuration, cancellationToken).ConfigureAwait(false);
        }
        catch (CliException e)
        {
            console.Error.WriteLine($"salvo: error: {e.Message}");
            return e.ExitCode;
        }
        catch (OperationCanceledException)
        {
            var signal = stoppedBy?.Invoke() ?? StopSignal.Interrupt;
            console.Error.WriteLine($"salvo: cancelled ({signal.Name})");
            return signal.ExitCode;
        }
        catch (SocketException e)
        {
            console.Error.WriteLine($"salvo: error: {e.Message} ({e.SocketErrorCode})");
            return CliException.FailureExitCode;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidOperationException or TimeoutException or ArgumentException or NotSupportedException)
        {
            console.Error.WriteLine($"salvo: error: {e.Message}");
            return CliException.FailureExitCode;
        }
#pragma warning disable CA1031 // The tool's edge: anything unforeseen still ends as one line, not a stack trace.
        catch (Exception e)
#pragma warning restore CA1031
        {
            console.Error.WriteLine($"salvo: internal error: {e.GetType().Name}: {e.Message}");
            return CliException.FailureExitCode;
        }
    }
}
