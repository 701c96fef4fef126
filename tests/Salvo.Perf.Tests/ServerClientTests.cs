using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.Traffic;

namespace Salvo.Perf.Tests;

[Collection(WholeProcessCollection.Name)]
public sealed class ServerClientTests
{
    [Fact]
    public async Task Server_MalformedHello_AnswersErrorLogsReasonAndServesTheNextClient()
    {
        await using var server = await RunningServer.StartAsync();

        using (var raw = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            await raw.ConnectAsync(IPAddress.Loopback, server.Port);
            await raw.SendAsync("{\"type\":\"hello\",\"version\":1,\"lengthBytes\":99999}\n"u8.ToArray());
            var reply = new byte[4096];
            var n = await raw.ReceiveAsync(reply).WaitAsync(TimeSpan.FromSeconds(30));
            Assert.Contains("\"type\":\"error\"", Encoding.UTF8.GetString(reply, 0, n), StringComparison.Ordinal);
        }

        Assert.True(await server.WaitForErrorAsync("rejected"), server.Errors);
        Assert.Contains("lengthBytes", server.Errors, StringComparison.Ordinal);

        var (exit, output) = await RunClientAsync(server.Port, reverse: false);
        Assert.True(exit == 0, output);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Client_AgainstServer_AtModestRate_ReportsBothSidesWithoutLoss(bool reverse)
    {
        await using var server = await RunningServer.StartAsync();

        var (exit, output) = await RunClientAsync(server.Port, reverse);

        Assert.True(exit == 0, output + server.Errors);
        using var document = JsonDocument.Parse(output);
        var sender = document.RootElement.GetProperty("sender");
        var receiver = document.RootElement.GetProperty("receiver");
        Assert.True(sender.GetProperty("datagrams").GetInt64() > 0);
        Assert.Equal(sender.GetProperty("datagrams").GetInt64(), receiver.GetProperty("datagrams").GetInt64());
        Assert.Equal(0, receiver.GetProperty("lost").GetInt64());
        Assert.Equal(0, receiver.GetProperty("malformed").GetInt64());
    }

    private static async Task<(int Exit, string Output)> RunClientAsync(int port, bool reverse)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var console = new CliConsole(output, error, isTerminal: false) { Format = OutputFormat.Json };
        var settings = new ClientSettings($"127.0.0.1:{port}", 512, 2_000_000, 0.3, 2, reverse);
        var exit = await ClientCommand.RunAsync(console, "127.0.0.1", port, settings, IPAddress.Loopback, 0, 1, CancellationToken.None)
            .WaitAsync(TimeSpan.FromSeconds(60));
        return (exit, output + error.ToString());
    }
}
