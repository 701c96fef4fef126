using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.Tests.Output;

/// <summary><c>salvo server --json</c>: JSON Lines, one document per test; with --echo, the totals at the end.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class ServerJsonTests
{
    [Fact]
    public async Task ServerJson_TwoTests_EveryLineIsOneCompleteDocument()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Json, options: ["--json"]);
        for (var i = 0; i < 2; i++)
        {
            await RunClientAsync(server.Port);
        }

        await server.ReportAsync(2);
        var lines = server.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        foreach (var line in lines)
        {
            using var document = JsonDocument.Parse(line);
            Assert.Equal("server", document.RootElement.GetProperty("command").GetString());
            Assert.False(document.RootElement.TryGetProperty("cutShort", out _), line);
        }
    }

    [Fact]
    public async Task EchoJson_Stopped_PrintsTheTotalsAsOneDocument()
    {
        var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Json, options: ["--json", "--echo"]);
        using (var client = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp))
        {
            client.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            await client.SendToAsync(new byte[100], new IPEndPoint(IPAddress.Loopback, server.Port));
            var echo = new byte[200];
            var received = await client.ReceiveAsync(echo).WaitAsync(TimeSpan.FromSeconds(30));
            Assert.Equal(100, received);
        }

        var output = await server.StopAsync();
        Assert.Equal(0, await server.StoppedAsync());
        await server.DisposeAsync();

        var line = Assert.Single(output.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        using var document = JsonDocument.Parse(line);
        Assert.Equal("echo", document.RootElement.GetProperty("command").GetString());
        var totals = document.RootElement.GetProperty("totals");
        Assert.Equal(1, totals.GetProperty("udpReceived").GetInt64());
        Assert.Equal(1, totals.GetProperty("udpEchoed").GetInt64());
    }

    private static async Task RunClientAsync(int port)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var console = new CliConsole(output, error, isTerminal: false) { Format = OutputFormat.Json };
        var settings = new ClientSettings($"127.0.0.1:{port}", 512, 2_000_000, 0.2, 1, false);
        var exit = await ClientCommand.RunAsync(console, "127.0.0.1", port, settings, IPAddress.Loopback, 0, 1, CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(60));
        Assert.True(exit == 0, output.ToString() + error);
    }
}
