using System.CommandLine;
using Salvo.Perf.Cli;

namespace Salvo.Perf.TestServer.Echo;

/// <summary>The options that turn <c>salvo server</c> into an RFC 862 echo service.</summary>
internal sealed class EchoOptionSet
{
    public Option<bool> Echo { get; } = new("--echo")
    {
        Description = "Run a standard echo service (RFC 862) instead of the test server: every UDP datagram and every TCP byte on " +
            "--port comes back unchanged. Defaults to off.",
    };

    public Option<double> RatePerSource { get; } = CommonOptions.Double("--echo-rate", null, "PER_SECOND", 0, 0, 100_000_000, "datagrams/s",
        "With --echo: the most UDP datagrams per second echoed to one source address and port (a burst of 32 first); the rest " +
        "are dropped and counted as rate_limited. An open echo service reflects traffic at whatever source a packet claims; " +
        "set this before binding a public address. 0 = no limit.");

    public void AddTo(Command command)
    {
        command.Options.Add(Echo);
        command.Options.Add(RatePerSource);
    }

    /// <summary>The echo settings, or null when --echo is off (then --echo-rate must not be given).</summary>
    /// <param name="parse">The parsed command line.</param>
    /// <param name="oneOff">The server's -1 option, which an echo service (no tests, no clients to count) refuses.</param>
    public EchoSettings? Read(ParseResult parse, Option<bool> oneOff)
    {
        var rate = parse.GetValue(RatePerSource);
        if (!parse.GetValue(Echo))
        {
            return rate > 0 ? throw new CliException("--echo-rate: applies to --echo only.") : null;
        }

        if (parse.GetValue(oneOff))
        {
            throw new CliException("-1/--one-off: does not apply to --echo (an echo service has no tests to count; stop it with Ctrl+C).");
        }

        return new EchoSettings(rate > 0 ? rate : null);
    }
}

/// <summary>How the echo service runs.</summary>
/// <param name="RatePerSource">Datagrams per second echoed to one source, or null for no limit.</param>
/// <param name="Backend">The UDP sockets' backend (--backend).</param>
internal sealed record EchoSettings(double? RatePerSource, DatagramBackend Backend = DatagramBackend.Auto);
