using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests.Reliability;

/// <summary><c>salvo transport</c> against loopback set-ups where UDP gets nowhere: what it says is what happened.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class TransportCommandTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task UdpOnly_PeerReadsAndNeverReplies_ReportsTheDatagramsReallySentAndFails()
    {
        // A UDP socket that reads and never answers: what a path that drops the replies looks like.
        using var silent = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        silent.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var port = ((IPEndPoint)silent.LocalEndPoint!).Port;

        var (exit, output, error) = await Cli.RunAsync("transport", $"127.0.0.1:{port}", "--mode", "UdpOnly", "-n", "10", "--json").WaitAsync(Bound);

        var arrived = 0;
        var buffer = new byte[2048];
        while (silent.Available > 0)
        {
            silent.Receive(buffer);
            arrived++;
        }

        Assert.Equal(CliException.FailureExitCode, exit);
        using var document = JsonDocument.Parse(output);
        var report = document.RootElement;
        Assert.Equal(arrived, report.GetProperty("sent").GetInt32());
        Assert.Equal(10, report.GetProperty("requested").GetInt32());
        Assert.True(arrived < 10, $"{arrived} datagrams: the run should stop once the path proves dead");
        Assert.Equal(0, report.GetProperty("echoed").GetInt32());
        Assert.Contains("nothing came back", report.GetProperty("failure").GetString(), StringComparison.Ordinal);
        Assert.Contains("nothing came back", error, StringComparison.Ordinal);
        Assert.Contains("dropped on the path", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task UdpFirst_NothingListening_SaysTheAddressAndWhatUdpAndThenTcpGot()
    {
        // Bound and not listening holds the port number: TCP connects are refused and no UDP socket is there.
        using var holder = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        holder.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var port = ((IPEndPoint)holder.LocalEndPoint!).Port;

        var (exit, _, error) = await Cli.RunAsync("transport", $"127.0.0.1:{port}", "--handshake-ms", "200").WaitAsync(Bound);

        Assert.Equal(CliException.FailureExitCode, exit);
        Assert.Contains($"127.0.0.1:{port}", error, StringComparison.Ordinal);
        Assert.Contains("UDP was tried first: the server's UDP port is unreachable (ICMP)", error, StringComparison.Ordinal);
        Assert.Contains("then TCP: Connection refused", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Watch_AnEchoGoesMissing_TheMessageIsResentAndEachNumberEchoedOnce()
    {
        // The server swallows the first copy of message 3, as a path that drops one datagram would.
        var swallowed = 0;
        await using var server = new Salvo.Streams.MessageTransportServer(
            new Salvo.Streams.MessageTransportServerOptions { EndPoint = new IPEndPoint(IPAddress.Loopback, 0) },
            async (peer, message) =>
            {
                var bytes = System.Buffers.BuffersExtensions.ToArray(message);
                if (System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(bytes) == 3 && Interlocked.Exchange(ref swallowed, 1) == 0)
                {
                    return;
                }

                await peer.SendAsync(bytes).ConfigureAwait(false);
            });
        server.Start();

        var (exit, output, error) = await Cli.RunAsync(
            "transport", $"127.0.0.1:{server.LocalEndPoint!.Port}", "--watch", "2", "--interval-ms", "10", "--json").WaitAsync(Bound);

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var report = document.RootElement;
        var sent = report.GetProperty("sent").GetInt32();
        Assert.True(sent > 3, $"{sent} messages");
        // The watch ends at 2 s whatever is in flight: the last message may still be waiting for its echo.
        Assert.Equal(sent, report.GetProperty("echoed").GetInt32() + report.GetProperty("inFlightAtEnd").GetInt32());
        // Message 3's echo was swallowed, so it was resent; on a loaded machine an echo later than the watch's 1 s
        // also makes a resend, whose copy is then counted once (duplicateEchoes stays 0).
        Assert.InRange(report.GetProperty("resent").GetInt32(), 1, sent);
        Assert.Equal(0, report.GetProperty("duplicateEchoes").GetInt32());
        Assert.Empty(report.GetProperty("switches").EnumerateArray());
        Assert.Equal("Udp", report.GetProperty("transport").GetString());
    }

    [Fact]
    public async Task Watch_TcpOnlyServerRestarted_SaysTheConnectionClosedAndReopenedAndEndsOnTime()
    {
        var first = EchoServer(new IPEndPoint(IPAddress.Loopback, 0));
        var endPoint = first.LocalEndPoint!;
        var clock = Stopwatch.StartNew();
        var run = Task.Run(() => Cli.RunAsync("transport", $"127.0.0.1:{endPoint.Port}", "--mode", "TcpOnly", "--watch", "4", "--interval-ms", "20", "--json"));
        await Task.Delay(TimeSpan.FromSeconds(1));
        await first.DisposeAsync();
        await using var second = EchoServer(endPoint);

        var (exit, output, error) = await run.WaitAsync(Bound);

        // Generous: the watch ends at 4 s; the run used to go on resending for 15 s more.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(4 + 6), $"took {clock.Elapsed.TotalSeconds:F1} s; {error}");
        Assert.True(exit == 0, error + output);
        Assert.Contains("TCP connection closed", error, StringComparison.Ordinal);
        Assert.Contains("TCP connection re-established", error, StringComparison.Ordinal);
        using var document = JsonDocument.Parse(output);
        var report = document.RootElement;
        Assert.True(report.GetProperty("sent").GetInt32() == report.GetProperty("echoed").GetInt32() + report.GetProperty("inFlightAtEnd").GetInt32(), output);
        Assert.True(report.GetProperty("reconnects").GetInt32() >= 1, output);
    }

    [Fact]
    public async Task Listen_Text_PrintsTheAddressOnce()
    {
        using var stop = new CancellationTokenSource();
        var (run, output, error, port) = Listen(stop.Token);
        await stop.CancelAsync();
        Assert.Equal(0, await run.WaitAsync(Bound));

        var everything = output.Text + error.Text;
        Assert.Equal(1, everything.Split($"127.0.0.1:{port}").Length - 1);
    }

    [Fact]
    public async Task Listen_MessagesOverUdpAndTcp_EndsWithReceivedAndAnsweredPerTransportAndTheDropsKnown()
    {
        using var stop = new CancellationTokenSource();
        var (run, output, _, port) = Listen(stop.Token);
        var server = new IPEndPoint(IPAddress.Loopback, int.Parse(port, System.Globalization.CultureInfo.InvariantCulture));

        await RoundTripAsync(server, Salvo.Streams.TransportMode.UdpFirst, 5);
        await RoundTripAsync(server, Salvo.Streams.TransportMode.TcpOnly, 3);
        await stop.CancelAsync();
        Assert.Equal(0, await run.WaitAsync(Bound));

        Assert.Contains("UDP: 5 message(s) received, 5 answered, ", output.Text, StringComparison.Ordinal);
        Assert.Contains(" 0 dropped by the kernel (receive buffer full), 0 datagram(s) without a message, 0 send error(s).", output.Text, StringComparison.Ordinal);
        Assert.Contains("TCP: 3 message(s) received, 3 answered.", output.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("Answered", output.Text, StringComparison.Ordinal);
    }

    /// <summary>Runs <c>transport --listen 127.0.0.1:0 -t 60</c> in process until <paramref name="stop"/>; returns once it says its port.</summary>
    private static (Task<int> Run, LiveWriter Output, LiveWriter Error, string Port) Listen(CancellationToken stop)
    {
        var output = new LiveWriter();
        var error = new LiveWriter();
        var run = Task.Run(() => SalvoCli.RunAsync(["transport", "--listen", "127.0.0.1:0", "-t", "60"], new CliConsole(output, error, isTerminal: false), stop));
        Assert.True(Eventually.True(() => Listening.Said(output.Text), Bound), error.Text);
        return (run, output, error, Listening.Port(output.Text));
    }

    /// <summary>Sends <paramref name="count"/> messages one at a time, each after the previous one's echo.</summary>
    private static async Task RoundTripAsync(IPEndPoint server, Salvo.Streams.TransportMode mode, int count)
    {
        var echoes = System.Threading.Channels.Channel.CreateUnbounded<bool>();
        await using var transport = new Salvo.Streams.MessageTransport(new Salvo.Streams.MessageTransportOptions { Mode = mode }, (_, _) =>
        {
            echoes.Writer.TryWrite(true);
            return ValueTask.CompletedTask;
        });
        await transport.ConnectAsync(server);
        for (var i = 0; i < count; i++)
        {
            Assert.True(await transport.SendAsync(new byte[16]));
            await echoes.Reader.ReadAsync().AsTask().WaitAsync(Bound);
        }
    }

    private static Salvo.Streams.MessageTransportServer EchoServer(IPEndPoint endPoint)
    {
        var server = new Salvo.Streams.MessageTransportServer(
            new Salvo.Streams.MessageTransportServerOptions { EndPoint = endPoint },
            async (peer, message) => await peer.SendAsync(System.Buffers.BuffersExtensions.ToArray(message)).ConfigureAwait(false));
        server.Start();
        return server;
    }
}
