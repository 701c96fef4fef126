using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text.RegularExpressions;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Sockperf;

namespace Salvo.Perf.Tests.Sockperf;

/// <summary>The stock sockperf client against <c>salvo server</c>: every mode completes, and both sides count the same.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed partial class StockSockperfClientTests
{
    [RequiresTheory(Tools = ["sockperf"])]
    [InlineData("ping-pong", false)]
    [InlineData("ping-pong", true)]
    [InlineData("under-load", false)]
    [InlineData("under-load", true)]
    [InlineData("throughput", false)]
    [InlineData("throughput", true)]
    public async Task StockClient_AgainstSalvoServer_CompletesAndSalvoCountsWhatItSent(string mode, bool tcp)
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Text);
        List<string> arguments = [mode, "-i", "127.0.0.1", "-p", server.Port.ToString(CultureInfo.InvariantCulture), "-t", "1"];
        if (mode != "ping-pong")
        {
            // Modest, so that a busy 2-core machine loses nothing over UDP loopback.
            arguments.Add("--mps=5000");
        }

        if (tcp)
        {
            arguments.Add("--tcp");
        }

        var (exit, output) = await StockSockperf.RunAsync([.. arguments]);
        Assert.True(exit == 0, output);
        var (sent, received) = mode == "throughput" ? (StockSockperf.ThroughputSent(output), 0) : StockSockperf.TotalRun(output);
        var barrier = 0;
        if (tcp)
        {
            // The line that ends a connection, whether the client closed or reset it, carries its counts.
            Assert.True(await server.WaitForLogAsync(" replies"), server.Log);
        }
        else
        {
            await PingUdpAsync(server.Port);
            barrier = 1;
        }

        var (messages, replies) = SalvoTotals(await server.StopAsync());
        Assert.True(sent > 0, output);
        Assert.Equal(sent, messages - barrier);
        if (mode == "throughput")
        {
            Assert.Equal(0, replies - barrier);
        }
        else if (mode == "ping-pong")
        {
            // Ping-pong keeps one request in flight: the client stops on its timer with at most that one
            // unanswered, which salvo answered and the client no longer counted.
            Assert.InRange(replies - barrier, received, received + 1);
        }
        else
        {
            // Under load the client sends on its schedule without waiting, asking for a reply every 100th
            // message (sockperf's default --reply-every): every reply it counted came from salvo, and salvo
            // answered no more than the client asked for; replies still on the way when its timer ends are
            // counted by salvo only (14 of 50 once, over TCP).
            Assert.InRange(replies - barrier, received, (sent / 100) + 1);
        }
    }

    [Fact]
    public async Task SalvoServer_BadSockperfHeaderOnTcp_ClosesThatConnectionWithReasonAndServesOthers()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Text);
        using (var bad = await ConnectAsync(server.Port))
        {
            var reply = new byte[SockperfHeader.Size];
            await bad.SendAsync(Ping(1));
            await ReceiveExactlyAsync(bad, reply);
            var unknownFlags = Ping(2);
            unknownFlags[SockperfHeader.FlagsOffset] = 0x80;

            await bad.SendAsync(unknownFlags);

            Assert.Equal(0, await bad.ReceiveAsync(reply).WaitAsync(StockSockperf.Bound));
        }

        Assert.True(await server.WaitForLogAsync("dropped: bad sockperf header (UnknownFlags)"), server.Log);
        using (var good = await ConnectAsync(server.Port))
        {
            var reply = new byte[SockperfHeader.Size];
            await good.SendAsync(Ping(7));
            await ReceiveExactlyAsync(good, reply);
            Assert.Equal(SockperfHeaderError.None, SockperfHeader.TryRead(reply, out var header));
            Assert.Equal(new SockperfHeader(7, SockperfFlags.PongRequest, SockperfHeader.Size), header);
        }

        var output = await server.StopAsync();
        Assert.Contains("1 malformed", output, StringComparison.Ordinal);
        Assert.Equal((2, 2), SalvoTotals(output));
    }

    [Fact]
    public async Task SalvoServer_TcpClientResetsWithAnAnswerUnread_LogsTheEndWithItsCounts()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Text);
        using (var client = await ConnectAsync(server.Port))
        {
            await client.SendAsync(Ping(1));
            for (var i = 0; i < 600 && client.Available < SockperfHeader.Size; i++)
            {
                await Task.Delay(50);
            }

            // Closing with the answer unread makes the kernel send RST instead of FIN, as sockperf's client does
            // at the end of a timed ping-pong.
            Assert.Equal(SockperfHeader.Size, client.Available);
        }

        Assert.True(await server.WaitForLogAsync("(ConnectionReset): 1 messages, 1 replies"), server.Log);
    }

    [Fact]
    public async Task SalvoServer_UdpLengthFieldDisagreesWithDatagram_CountsMalformedAndAnswersTheNext()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Text);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        client.Connect(IPAddress.Loopback, server.Port);
        var lying = new byte[SockperfHeader.Size + 10];
        Ping(1).CopyTo(lying, 0);

        await client.SendAsync(lying);
        await PingUdpAsync(server.Port);

        var output = await server.StopAsync();
        Assert.Contains("1 malformed", output, StringComparison.Ordinal);
        Assert.Equal((1, 1), SalvoTotals(output));
    }

    /// <summary>A sockperf pong request; its answer over UDP means every earlier datagram was handled (one worker, in order).</summary>
    private static async Task PingUdpAsync(int port)
    {
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        client.Connect(IPAddress.Loopback, port);
        await client.SendAsync(Ping(1));
        var reply = new byte[SockperfHeader.Size];
        Assert.Equal(SockperfHeader.Size, await client.ReceiveAsync(reply).WaitAsync(StockSockperf.Bound));
    }

    private static byte[] Ping(ulong sequence)
    {
        var message = new byte[SockperfHeader.Size];
        new SockperfHeader(sequence, SockperfFlags.Client | SockperfFlags.PongRequest, SockperfHeader.Size).Write(message);
        return message;
    }

    private static async Task<Socket> ConnectAsync(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(IPAddress.Loopback, port);
        return socket;
    }

    private static async Task ReceiveExactlyAsync(Socket socket, byte[] buffer)
    {
        for (var read = 0; read < buffer.Length;)
        {
            var n = await socket.ReceiveAsync(buffer.AsMemory(read)).AsTask().WaitAsync(StockSockperf.Bound);
            Assert.NotEqual(0, n);
            read += n;
        }
    }

    /// <summary>Messages and replies from salvo server's "sockperf total:" line.</summary>
    private static (long Messages, long Replies) SalvoTotals(string output)
    {
        var match = SalvoTotalLine().Match(output);
        Assert.True(match.Success, $"no 'sockperf total:' line in: {output}");
        return (long.Parse(match.Groups[1].Value, NumberStyles.AllowThousands, CultureInfo.InvariantCulture),
            long.Parse(match.Groups[2].Value, NumberStyles.AllowThousands, CultureInfo.InvariantCulture));
    }

    [GeneratedRegex(@"sockperf total: ([\d,]+) messages received and handled, ([\d,]+) replies")]
    private static partial Regex SalvoTotalLine();
}
