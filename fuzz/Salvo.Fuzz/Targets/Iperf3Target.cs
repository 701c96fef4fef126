using System.Text;
using Salvo.Perf.TestServer.Iperf3;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// What a stock iperf3 peer sends, each through its parser: the parameters and results JSON
/// (<see cref="Iperf3Parameters.Parse"/> refuses with an error code and reason, <see cref="Iperf3Results.Parse"/>
/// with <see cref="InvalidDataException"/>), the cookie, the JSON length prefix (<see cref="InvalidDataException"/>)
/// and the UDP datagram header in both counter widths.
/// </summary>
public sealed class Iperf3Target : IFuzzTarget
{
    public string Name => "iperf3";

    public string Description => "iperf3 control JSON (parameters, results), cookie, length prefix, UDP header";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (Iperf3Parameters.Parse(input, out _, out var reason) is { } parameters)
        {
            _ = parameters.ToJson();
        }
        else if (string.IsNullOrEmpty(reason))
        {
            throw new InvalidOperationException("Refused parameters without a reason.");
        }

        try
        {
            _ = Iperf3Results.Parse(input).ToJson();
        }
        catch (InvalidDataException e) when (e.Message.Length > 0)
        {
        }

        _ = Iperf3Cookie.Validate(input);
        if (input.Length >= 4)
        {
            try
            {
                _ = Iperf3Control.DecodeLength(input);
            }
            catch (InvalidDataException e) when (e.Message.Length > 0)
            {
            }
        }

        _ = Iperf3Datagram.TryReadHeader(input, counters64: false, out _, out _);
        _ = Iperf3Datagram.TryReadHeader(input, counters64: true, out _, out _);
        _ = Iperf3Datagram.IsConnectMessage(input);
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        yield return ("parameters", new Iperf3Parameters(10, 2, Reverse: true, 1400, 1_000_000, Counters64: true).ToJson());
        yield return ("parameters-tcp", Encoding.UTF8.GetBytes("{\"tcp\":true,\"omit\":0,\"time\":10,\"parallel\":1,\"len\":131072}"));
        yield return ("results", new Iperf3Results(4.5, [new Iperf3StreamResult(1, 140_000, 0.00012, 3, 1000, 1, 10.0)]).ToJson());
        yield return ("cookie", Iperf3Cookie.Create());
        var header = new byte[16];
        Iperf3Datagram.WriteHeader(header, 1_767_225_600_000_000, 42, counters64: true);
        yield return ("datagram-64", header);
        yield return ("connect", Iperf3Datagram.ConnectMessage.ToArray());
    }
}
