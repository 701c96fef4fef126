using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using System.Text;
using System.Text.Json;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.Tests;

[Collection(WholeProcessCollection.Name)]
public sealed class ServerClientTests
{
    [Fact]
    public async Task Server_MalformedHello_AnswersErrorLogsReasonAndServesTheNextClient()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();

        using (var raw = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            await raw.ConnectAsync(IPAddress.Loopback, server.Port);
            await raw.SendAsync("{\"type\":\"hello\",\"version\":1,\"lengthBytes\":99999}\n"u8.ToArray());
            var reply = new byte[4096];
            var n = await raw.ReceiveAsync(reply).WaitAsync(TimeSpan.FromSeconds(30));
            Assert.Contains("\"type\":\"error\"", Encoding.UTF8.GetString(reply, 0, n), StringComparison.Ordinal);
        }

        Assert.True(await server.WaitForLogAsync("rejected"), server.Log);
        Assert.Contains("lengthBytes", server.Log, StringComparison.Ordinal);

        var (exit, output) = await RunClientAsync(server.Port, reverse: false);
        Assert.True(exit == 0, output);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Client_AgainstServer_AtModestRate_ReportsBothSidesWithoutLoss(bool reverse)
    {
        await using var server = await SalvoServerUnderTest.StartAsync();

        var (exit, output) = await RunClientAsync(server.Port, reverse);

        Assert.True(exit == 0, output + server.Log);
        using var document = JsonDocument.Parse(output);
        var sender = document.RootElement.GetProperty("sender");
        var receiver = document.RootElement.GetProperty("receiver");
        Assert.True(sender.GetProperty("datagrams").GetInt64() > 0);
        Assert.Equal(sender.GetProperty("datagrams").GetInt64(), receiver.GetProperty("datagrams").GetInt64());
        Assert.Equal(0, receiver.GetProperty("lost").GetInt64());
        Assert.Equal(0, receiver.GetProperty("malformed").GetInt64());
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData(false)]
    [InlineData(true)]
    [SupportedOSPlatform("linux")]
    public async Task Backend_ChosenOnEachEnd_IsTheOneEachSideReports(bool reverse)
    {
        // The server on the portable backend, the client on the Linux one: each side's report names its own.
        await using var server = await SalvoServerUnderTest.StartAsync(backend: DatagramBackend.Portable);

        var (exit, output) = await RunClientAsync(server.Port, reverse, backend: DatagramBackend.LinuxBatched);

        Assert.True(exit == 0, output + server.Log);
        using var document = JsonDocument.Parse(output);
        var (serverSide, clientSide) = reverse ? ("sender", "receiver") : ("receiver", "sender");
        Assert.Equal("Portable", document.RootElement.GetProperty(serverSide).GetProperty("backend").GetString());
        Assert.Equal("LinuxBatched", document.RootElement.GetProperty(clientSide).GetProperty("backend").GetString());
        Assert.Equal("LinuxBatched", document.RootElement.GetProperty("settings").GetProperty("backend").GetString());
        Assert.Equal("Portable", (await server.ReportAsync(1)).GetProperty("local").GetProperty("backend").GetString());
    }


    [Theory]
    [InlineData("127.0.0.1", false)]
    [InlineData("127.0.0.1", true)]
    [InlineData("::1", false)]
    public async Task Server_BoundToIPv6Any_ServesIPv4AndIPv6Clients(string clientAddress, bool reverse)
    {
        await using var server = await SalvoServerUnderTest.StartAsync(IPAddress.IPv6Any);

        var (exit, output) = await RunClientAsync(server.Port, reverse, IPAddress.Parse(clientAddress));

        Assert.True(exit == 0, output + server.Log);
        using var document = JsonDocument.Parse(output);
        Assert.True(document.RootElement.GetProperty("receiver").GetProperty("datagrams").GetInt64() > 0, output);
    }

    [Fact]
    public async Task SilentConnection_IsRejectedOnceSorted_AndTheServerServesTheNextClient()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(oneOff: true);

        // Connected and silent, as a port scan that leaves the connection open: the sorting that tells sockperf,
        // iperf3 and Salvo apart gives up on it once, and the control loop rejects it without waiting again.
        using var silent = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await silent.ConnectAsync(IPAddress.Loopback, server.Port);

        Assert.True(await server.WaitForLogAsync("sent nothing within 10 s; waiting for the next client"), server.Log);
        Assert.False(server.Stopped, server.Log);
        var (exit, output) = await RunClientAsync(server.Port, reverse: false);
        Assert.True(exit == 0, output + server.Log);
        Assert.Equal(0, await server.StoppedAsync());
    }

    [Fact]
    public async Task OneOffServer_BareConnectAndGarbage_DoNotUseUpTheOneTest()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(oneOff: true);

        using (var scan = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            // What nc -z and port scanners do: connect, send nothing, close.
            await scan.ConnectAsync(IPAddress.Loopback, server.Port);
        }

        Assert.True(await server.WaitForLogAsync("closed the control connection; waiting for the next client"), server.Log);
        using (var garbage = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            await garbage.ConnectAsync(IPAddress.Loopback, server.Port);
            await garbage.SendAsync("GET / HTTP/1.0\r\n\r\n"u8.ToArray());
            Assert.True(await server.WaitForLogAsync("a control message is one JSON object per line"), server.Log);
        }

        Assert.False(server.Stopped, server.Log);
        var (exit, output) = await RunClientAsync(server.Port, reverse: false);
        Assert.True(exit == 0, output + server.Log);
        Assert.Equal(0, await server.StoppedAsync());
    }

    [Fact]
    public async Task Server_CancelledAfterServingAClient_ExitsWith130AndSaysCancelled()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Text);
        var (clientExit, clientOutput) = await RunClientAsync(server.Port, reverse: false);
        Assert.True(clientExit == 0, clientOutput);

        await server.StopAsync();
        var exit = await server.StoppedAsync();

        Assert.Equal(CliException.CancelledExitCode, exit);
        Assert.Contains("salvo: cancelled", server.Log, StringComparison.Ordinal);
    }

    private static async Task<(int Exit, string Output)> RunClientAsync(int port, bool reverse, IPAddress? address = null, DatagramBackend backend = DatagramBackend.Auto)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var console = new CliConsole(output, error, isTerminal: false) { Format = OutputFormat.Json };
        var host = (address ?? IPAddress.Loopback).ToString();
        var settings = new ClientSettings($"{host}:{port}", 512, 2_000_000, 0.3, 2, reverse, backend);
        var bind = address?.AddressFamily == AddressFamily.InterNetworkV6 ? IPAddress.IPv6Loopback : IPAddress.Loopback;
        var exit = await ClientCommand.RunAsync(console, host, port, settings, bind, 0, 1, CancellationToken.None)
            .WaitAsync(TimeSpan.FromSeconds(60));
        return (exit, output + error.ToString());
    }
}
