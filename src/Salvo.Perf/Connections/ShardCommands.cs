using System.CommandLine;
using System.Net;
using Salvo.Perf.Cli;
using Salvo.Streams;

namespace Salvo.Perf.Connections;

/// <summary>The hidden shard roles <c>salvo connections</c> starts itself in; they speak <see cref="ShardProtocol"/> on stdin/stdout.</summary>
internal static class ShardCommands
{
    public static Command Server()
    {
        var port = CommonOptions.Int("--port", null, "PORT", 0, 0, 65_535, "Port to share (0: pick one and report it).");
        var framing = Framing();
        var server = CommonOptions.Choice("--server", "salvo or plain.", ServerNames.Salvo, ServerNames.Plain);
        var address = CommonOptions.LoopbackBind();
        var command = new Command("shard-server", "Internal: one echo server process of 'salvo connections'.") { Hidden = true };
        command.Options.Add(port);
        command.Options.Add(address);
        command.Options.Add(framing);
        command.Options.Add(server);
        command.SetAction((parse, _) => ServerShard.RunAsync(
            new IPEndPoint(CommonOptions.ParseLoopbackAddress(parse.GetValue(address)!), parse.GetValue(port)), Framer(parse.GetValue(framing)), parse.GetValue(server) == ServerNames.Plain, Console.In, Console.Out));
        return command;
    }

    public static Command Client()
    {
        var port = CommonOptions.Int("--port", null, "PORT", 0, 1, 65_535, "Server port on --bind.");
        var address = CommonOptions.LoopbackBind();
        var source = new Option<string>("--source") { Description = "Source address. Defaults to 127.0.0.2.", HelpName = "ADDRESS", DefaultValueFactory = _ => "127.0.0.2" };
        var count = CommonOptions.Int("--count", null, "COUNT", 1, 0, ConnectionsRunner.MaxConnectionsPerProcess, "Connections.");
        var active = CommonOptions.Int("--active", null, "COUNT", 0, 0, ConnectionsRunner.MaxConnectionsPerProcess, "Connections that send.");
        var rate = CommonOptions.Double("--rate", null, "PER_SECOND", 0, 0, 10_000_000, "messages/s", "Messages/s, as 'salvo connections --rate' passes it.");
        var time = CommonOptions.Seconds("--time", null, 10, "Seconds of traffic.");
        var minSize = CommonOptions.Int("--min-size", null, "BYTES", 16, 8, 65_536, "Smallest message.");
        var maxSize = CommonOptions.Int("--max-size", null, "BYTES", 512, 8, 65_536, "Largest message.");
        var framing = Framing();
        var client = CommonOptions.Choice("--client", "epoll or salvo.", LoadClientNames.Choices);
        var batch = CommonOptions.Int("--batch", null, "COUNT", 1, 1, 64, "Messages per send.");
        var settle = CommonOptions.Seconds("--settle", null, 0, "Seconds to wait for echoes after the traffic.", allowZero: true);
        var command = new Command("shard-client", "Internal: one client process of 'salvo connections'.")
        {
            Hidden = true,
        };
        foreach (var option in new Option[] { port, address, source, count, active, rate, time, minSize, maxSize, framing, client, batch, settle })
        {
            command.Options.Add(option);
        }

        command.SetAction((parse, _) => ClientShard.RunAsync(
            new ClientShardSettings(parse.GetValue(port), CommonOptions.ParseAddress(parse.GetValue(source)!, "--source"), parse.GetValue(count),
                parse.GetValue(active), parse.GetValue(rate), parse.GetValue(time), parse.GetValue(minSize), parse.GetValue(maxSize),
                LoadClientNames.Parse(parse.GetValue(client)), parse.GetValue(batch)) { SettleSeconds = parse.GetValue(settle), Server = CommonOptions.ParseLoopbackAddress(parse.GetValue(address)!) },
            Framer(parse.GetValue(framing)), Console.In, Console.Out));
        return command;
    }

    private static Option<string> Framing() => CommonOptions.Choice("--framing", "length or stx.", "length", "stx");

    private static IMessageFramer Framer(string? name) => name == "stx" ? MessageFramer.Delimited : MessageFramer.LengthPrefix;
}
