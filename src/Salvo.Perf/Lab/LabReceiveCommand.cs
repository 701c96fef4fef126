using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Lab;

/// <summary>
/// The hidden role <c>salvo lab receive</c> that <c>salvo lab</c> runs in namespace B: Salvo's batched receive loop
/// (64-datagram <see cref="ReceiveBatch"/>, blocking) on the backend asked for, measured as C's <c>udplimit recv</c>
/// measures itself: the window opens at the first datagram (here after --warmup seconds more, as tiered compilation
/// settles; C has nothing to warm) and lasts --time seconds; the process's user and system
/// CPU over it. It prints READY when its socket is open and one <c>RESULT key=value</c> line in udplimit's names.
/// </summary>
internal static class LabReceiveCommand
{
    /// <summary>The line (on standard error) that says the socket is open.</summary>
    public const string Ready = "READY";

    /// <summary>SO_RCVBUF asked for: what the loopback command and C's receiver ask for (the kernel caps it at rmem_max).</summary>
    private const int SocketBufferBytes = 4 * 1024 * 1024;

    private static readonly TimeSpan s_poll = TimeSpan.FromMilliseconds(100);

    public static Command Create(CliConsole console)
    {
        var bind = new Option<string>("--bind", "-B") { Description = $"Address to receive on. Defaults to {VethLab.AddressB}.", HelpName = "ADDRESS", DefaultValueFactory = _ => VethLab.AddressB };
        var port = CommonOptions.Int("--port", "-p", "PORT", 0, 1, 65_535, "UDP port.");
        var size = CommonOptions.Int("--size", null, "BYTES", 64, 1, ValueParsers.MaxUdpPayload, "Payload of the datagrams expected (sizes the buffers).");
        var time = CommonOptions.Seconds("--time", "-t", 2, "Measured seconds from the first datagram.");
        var firstWait = CommonOptions.Seconds("--first-wait", null, 10, "Seconds to wait for the first datagram.");
        var warmup = CommonOptions.Seconds("--warmup", null, 0.5, "Unmeasured seconds after the first datagram (the JIT's tiers settle).", allowZero: true);
        var backend = BackendOption.Create("the receiving socket", afXdp: true);
        var busyPoll = BackendOption.AfXdpBusyPoll("the receiving socket");
        var command = new Command("receive", "Internal: the receiver 'salvo lab' runs in its namespace B.") { Hidden = true };
        foreach (var option in new Option[] { bind, port, size, time, firstWait, warmup, backend, busyPoll })
        {
            command.Options.Add(option);
        }

        command.SetAction((parse, cancellationToken) => Task.FromResult(Run(
            console,
            new IPEndPoint(CommonOptions.ParseAddress(parse.GetValue(bind)!, "--bind"), parse.GetValue(port)),
            parse.GetValue(size),
            parse.GetValue(time),
            parse.GetValue(firstWait),
            parse.GetValue(warmup),
            BackendOption.Read(parse, backend),
            parse.GetValue(busyPoll),
            cancellationToken)));
        return command;
    }

    private static int Run(CliConsole console, IPEndPoint endPoint, int size, double seconds, double firstWait, double warmup, DatagramBackend backend, bool busyPoll, CancellationToken cancellationToken)
    {
        using var socket = new DatagramSocket(BackendOption.WithBusyPoll(new DatagramSocketOptions { LocalEndPoint = endPoint, ReceiveBufferSize = SocketBufferBytes, Backend = backend }, busyPoll));
        // One buffer per datagram a little larger than the payload: 64 buffers of 64 KiB would spread each batch over
        // 4 MiB that the caches cannot hold (as the loopback command's receiver).
        var batch = new ReceiveBatch(ReceiveBatch.DefaultCapacity, Math.Min(ReceiveBatch.DefaultBufferSize, size + 1));
        var method = $"salvo-{socket.Backend}" + (busyPoll && socket.Backend == DatagramBackend.AfXdp ? "-busy-poll" : string.Empty);
        console.Note($"{Ready} receive {method} on {socket.LocalEndPoint}");
        var waiting = Stopwatch.StartNew();
        var first = 0;
        while (first == 0)
        {
            cancellationToken.ThrowIfCancellationRequested();
            first = socket.Receive(batch, s_poll);
            if (first == 0 && waiting.Elapsed.TotalSeconds > firstWait)
            {
                console.Line($"RESULT mode=recv method={method} error=no_data");
                return CliException.FailureExitCode;
            }
        }

        var warming = Stopwatch.StartNew();
        while (warming.Elapsed.TotalSeconds < warmup)
        {
            cancellationToken.ThrowIfCancellationRequested();
            socket.Receive(batch, s_poll);
        }

        using var process = Process.GetCurrentProcess();
        var (user0, system0) = (process.UserProcessorTime, process.PrivilegedProcessorTime);
        var window = Stopwatch.StartNew();
        long datagrams = 0, bytes = 0, calls = 0;
        while (window.Elapsed.TotalSeconds < seconds)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var count = socket.Receive(batch, s_poll);
            calls++;
            datagrams += count;
            foreach (var datagram in batch)
            {
                bytes += datagram.Length;
            }
        }

        var elapsed = window.Elapsed.TotalSeconds;
        process.Refresh();
        var user = (process.UserProcessorTime - user0).TotalSeconds;
        var system = (process.PrivilegedProcessorTime - system0).TotalSeconds;
        console.Line(string.Create(CultureInfo.InvariantCulture,
            $"RESULT mode=recv method={method} dur={elapsed:F4} dgrams={datagrams} calls={calls} bytes={bytes} pps={datagrams / elapsed:F0} cpu_user={user:F4} cpu_sys={system:F4}"));
        return 0;
    }
}
