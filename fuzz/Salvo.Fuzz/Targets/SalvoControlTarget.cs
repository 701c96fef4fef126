using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Protocol;
using Salvo.Perf.Reporting;
using Salvo.Perf.Rr;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// What a <c>salvo client</c> sends a <c>salvo server</c>, and back: one control line through
/// <see cref="ControlChannel.Parse"/> (refusal: <see cref="InvalidDataException"/>), the server's hello check, the
/// printing of a peer's side report, the payload header of every test datagram (<see cref="PayloadHeader.TryRead"/>)
/// and an rr request (<see cref="RrWire.TryReadRequest"/>: -1, or the answer's length, which must be a datagram's).
/// </summary>
public sealed class SalvoControlTarget : IFuzzTarget
{
    public string Name => "salvo-control";

    public string Description => "salvo client/server control lines, hellos and payload headers";

    public void Run(ReadOnlySpan<byte> input)
    {
        _ = PayloadHeader.TryRead(input, out _);
        if (RrWire.TryReadRequest(input, out _) is var answer and (< -1 or > 65_507))
        {
            throw new InvalidOperationException($"An rr request asked for a {answer}-byte answer.");
        }

        ControlMessage message;
        try
        {
            message = ControlChannel.Parse(input);
        }
        catch (InvalidDataException e) when (e.Message.Length > 0)
        {
            return;
        }

        if (message.Type == "hello")
        {
            _ = message.ValidateHello();
        }

        // What the peer sent is logged and printed: that must work for anything the parser lets through.
        _ = JsonSerializer.SerializeToUtf8Bytes(message, PerfJson.Compact.ControlMessage);
        using var text = new StringWriter();
        TrafficReports.PrintSummary(new CliConsole(text, text, isTerminal: false), message.Side);
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        byte[] Line(ControlMessage message) => JsonSerializer.SerializeToUtf8Bytes(message, PerfJson.Compact.ControlMessage);
        yield return ("hello", Line(new ControlMessage("hello", ControlMessage.CurrentVersion, 1380, 1_000_000, 0.5, 2, false)));
        yield return ("hello-reverse", Line(new ControlMessage("hello", ControlMessage.CurrentVersion, 64, 0, 10, 2, true, [5201, 5202])));
        yield return ("ready", Line(new ControlMessage("ready", UdpPort: 5201)));
        yield return ("done", Line(new ControlMessage("done", Sent: [500, 500])));
        yield return ("error", Line(new ControlMessage("error", Reason: "parallel must be 1..128")));
        yield return ("result", "{\"type\":\"result\",\"side\":{\"role\":\"receiver\",\"seconds\":1.5,\"datagrams\":1000,\"bytes\":1380000,\"lost\":3,\"outOfOrder\":1,\"jitterMicroseconds\":12.5}}"u8.ToArray());
        var payload = new byte[PayloadHeader.Size + 8];
        new PayloadHeader(PayloadKind.Data, 3, 99, 1_000_000).Write(payload);
        yield return ("payload-header", payload);
        var request = new byte[PayloadHeader.Size + 4];
        RrWire.WriteRequest(request, slot: 1, sequence: 5, timeNanoseconds: 1_000_000, responseLength: 1400);
        yield return ("rr-request", request);
    }
}
