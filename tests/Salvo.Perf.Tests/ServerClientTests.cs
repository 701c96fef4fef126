using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Salvo.Perf.Cli;
using Salvo.Perf.Traffic;

namespace Salvo.Perf.Tests;

[Collection(WholeProcessCollection.Name)]
public sealed partial class ServerClientTests
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

    [Fact]
    public async Task Server_CancelledAfterServingAClient_ExitsWith130AndSaysCancelled()
    {
        await using var server = await RunningServer.StartAsync();
        var (clientExit, clientOutput) = await RunClientAsync(server.Port, reverse: false);
        Assert.True(clientExit == 0, clientOutput);

        var exit = await server.StopAsync();

        Assert.Equal(CliException.CancelledExitCode, exit);
        Assert.Contains("salvo: cancelled", server.Errors, StringComparison.Ordinal);
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

    [GeneratedRegex(@"listening on 127\.0\.0\.1:(\d+)")]
    private static partial Regex ListeningLine();

    /// <summary>A server on an ephemeral port in this process, stopped on dispose.</summary>
    private sealed class RunningServer : IAsyncDisposable
    {
        private readonly StringWriter _output = new();
        private readonly StringWriter _error = new();
        private readonly CancellationTokenSource _stop = new();
        private readonly TextWriter _syncOutput;
        private readonly TextWriter _syncError;
        private Task<int>? _run;

        private RunningServer()
        {
            // Synchronized writers lock on themselves; reads below take the same locks.
            _syncOutput = TextWriter.Synchronized(_output);
            _syncError = TextWriter.Synchronized(_error);
        }

        public int Port { get; private set; }

        public string Errors
        {
            get
            {
                lock (_syncError)
                {
                    return _error.ToString();
                }
            }
        }

        public static async Task<RunningServer> StartAsync()
        {
            var server = new RunningServer();
            var console = new CliConsole(server._syncOutput, server._syncError, isTerminal: false);
            server._run = Task.Run(() => SalvoCli.RunAsync(["server", "-p", "0", "-i", "0"], console, server._stop.Token));
            for (var i = 0; i < 600 && server.Port == 0; i++)
            {
                if (server._run.IsCompleted)
                {
                    Assert.Fail($"the server stopped: {server._run.Exception?.GetBaseException().Message} {server.Errors}");
                }

                await Task.Delay(50);
                var match = ListeningLine().Match(server.ReadOutput());
                server.Port = match.Success ? int.Parse(match.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) : 0;
            }

            Assert.NotEqual(0, server.Port);
            return server;
        }

        public async Task<bool> WaitForErrorAsync(string text)
        {
            for (var i = 0; i < 600; i++)
            {
                if (Errors.Contains(text, StringComparison.Ordinal))
                {
                    return true;
                }

                await Task.Delay(50);
            }

            return false;
        }

        /// <summary>Cancels the server as Ctrl+C does; returns its exit code.</summary>
        public async Task<int> StopAsync()
        {
            await _stop.CancelAsync();
            return _run is null ? 0 : await _run.WaitAsync(TimeSpan.FromSeconds(30));
        }

        public async ValueTask DisposeAsync()
        {
            await StopAsync();
            _stop.Dispose();
            _output.Dispose();
            _error.Dispose();
        }

        private string ReadOutput()
        {
            lock (_syncOutput)
            {
                return _output.ToString();
            }
        }
    }
}
