using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Lab;

/// <summary>
/// The hidden role <c>salvo lab send</c>: the sender that feeds the datagrams/s points when C's reference cannot be
/// built here (no C compiler). Salvo's batched send (64 datagrams per call on the kernel's UDP path, connected, as
/// C's <c>udplimit send -m sendmmsg</c>) for --time seconds; a datagram the kernel refuses is counted and skipped,
/// so a receiver that is not bound yet does not end it.
/// </summary>
internal static class LabSendCommand
{
    public static Command Create(CliConsole console)
    {
        var to = new Option<string>("--to") { Description = $"Address to send to. Defaults to {VethLab.AddressB}.", HelpName = "ADDRESS", DefaultValueFactory = _ => VethLab.AddressB };
        var port = CommonOptions.Int("--port", "-p", "PORT", 0, 1, 65_535, "UDP port.");
        var size = CommonOptions.Int("--size", null, "BYTES", 64, 1, ValueParsers.MaxUdpPayload, "Payload of each datagram.");
        var time = CommonOptions.Seconds("--time", "-t", 2, "Seconds to send.");
        var command = new Command("send", "Internal: the sender 'salvo lab' runs in its namespace A when no C compiler builds C's.") { Hidden = true };
        foreach (var option in new Option[] { to, port, size, time })
        {
            command.Options.Add(option);
        }

        command.SetAction((parse, cancellationToken) => Task.FromResult(Run(
            console,
            new IPEndPoint(CommonOptions.ParseAddress(parse.GetValue(to)!, "--to"), parse.GetValue(port)),
            parse.GetValue(size),
            parse.GetValue(time),
            cancellationToken)));
        return command;
    }

    private static int Run(CliConsole console, IPEndPoint destination, int size, double seconds, CancellationToken cancellationToken)
    {
        using var socket = new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = new IPEndPoint(IPAddress.Any, 0), Backend = DatagramBackend.Auto });
        socket.Connect(destination);
        var batch = new SendBatch(SendBatch.DefaultCapacity, size);
        var payload = new byte[size];
        var window = Stopwatch.StartNew();
        long sent = 0, refused = 0;
        while (window.Elapsed.TotalSeconds < seconds)
        {
            cancellationToken.ThrowIfCancellationRequested();
            batch.Clear();
            while (!batch.IsFull)
            {
                batch.Add(payload);
            }

            sent += socket.Send(batch);
            refused += batch.FailedCount;
        }

        var elapsed = window.Elapsed.TotalSeconds;
        console.Line(string.Create(CultureInfo.InvariantCulture,
            $"RESULT mode=send method=salvo-{socket.Backend} size={size} dur={elapsed:F4} dgrams={sent} pps={sent / elapsed:F0} refused={refused}"));
        return 0;
    }
}
