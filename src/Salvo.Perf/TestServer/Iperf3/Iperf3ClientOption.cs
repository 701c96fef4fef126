using System.CommandLine;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary><c>salvo client --iperf3</c>: the option, and the port it implies.</summary>
internal static class Iperf3ClientOption
{
    public static Option<bool> Create() => new("--iperf3")
    {
        Description = $"Test against a stock 'iperf3 -s' (UDP) instead of 'salvo server'; -p defaults to iperf3's {Iperf3Client.DefaultPort}. " +
            "-b is the total over all -P streams, as in Salvo (iperf3's own -b is per stream). -w/--workers is not used. Defaults to off.",
    };

    /// <summary>The port given with -p, or iperf3's default when -p was left out.</summary>
    public static int Port(ParseResult parse, Option<int> port) =>
        parse.GetResult(port) is { Implicit: false } ? parse.GetValue(port) : Iperf3Client.DefaultPort;
}
